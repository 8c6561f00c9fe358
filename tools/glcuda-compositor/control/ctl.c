/*
 * glcuda-compositor-ctl: one command to a running glcuda-compositor
 * through its control socket, its answer on stdout.
 *
 *   glcuda-compositor-ctl [--socket PATH] COMMAND [ARGS...]
 *
 * The socket is PATH, else $GLCUDA_COMPOSITOR_CONTROL (the compositor
 * prints it and gives it to its client). The words are sent as one line;
 * the data lines of the answer are printed, then what follows "ok" if
 * anything does. Exit status 0 on "ok", 1 on "error" (its message on
 * stderr), 2 when the compositor cannot be reached or went away. A
 * screenshot's relative path is made absolute here: the compositor's
 * working directory may differ. doc/compositor.md lists the commands.
 * SPDX-License-Identifier: MIT
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define PROG "glcuda-compositor-ctl"
#define LINE_MAX_BYTES 4096

static int
usage(void)
{
	fprintf(stderr, "usage: " PROG " [--socket PATH] COMMAND [ARGS...]\n"
		"  the socket: PATH, else $GLCUDA_COMPOSITOR_CONTROL\n");
	return 2;
}

/* The command line to send: the words joined by spaces. */
static int
build_line(char *line, size_t size, int argc, char **argv)
{
	size_t len = 0;

	for (int i = 0; i < argc; i++) {
		char abs[PATH_MAX + 2];
		const char *word = argv[i];
		int n;

		if (i == 1 && !strcmp(argv[0], "screenshot") &&
		    word[0] != '/') {
			char cwd[PATH_MAX];

			if (!getcwd(cwd, sizeof(cwd)) ||
			    snprintf(abs, sizeof(abs), "%s/%s", cwd, word) >=
				    (int)sizeof(abs)) {
				fprintf(stderr,
					PROG
					": cannot make %s an absolute path\n",
					word);
				return -1;
			}
			word = abs;
		}
		n = snprintf(line + len, size - len, "%s%s", i ? " " : "",
			     word);
		if (n < 0 || (size_t)n >= size - len - 1) {
			fprintf(stderr,
				PROG ": the command is longer than %zu bytes\n",
				size - 2);
			return -1;
		}
		len += (size_t)n;
	}
	line[len++] = '\n';
	line[len] = '\0';
	return 0;
}

static int
connect_to(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		fprintf(stderr, PROG ": socket path too long: %s\n", path);
		return -1;
	}
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		fprintf(stderr,
			PROG ": cannot connect to %s: %s (is glcuda-compositor "
			     "running?)\n",
			path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int
main(int argc, char **argv)
{
	const char *path = getenv("GLCUDA_COMPOSITOR_CONTROL");
	char line[LINE_MAX_BYTES + 2], buf[LINE_MAX_BYTES + 1];
	size_t len = 0, off = 0;
	int fd, ret = 2;
	FILE *in;

	if (argc > 2 && !strcmp(argv[1], "--socket")) {
		path = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || argv[1][0] == '-')
		return usage();
	if (!path || !*path) {
		fprintf(stderr, PROG
			": no --socket and no GLCUDA_COMPOSITOR_CONTROL\n");
		return 2;
	}
	if (build_line(line, sizeof(line), argc - 1, argv + 1) < 0)
		return 2;
	fd = connect_to(path);
	if (fd < 0)
		return 2;
	len = strlen(line);
	while (off < len) {
		ssize_t n = send(fd, line + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, PROG ": sending: %s\n",
				strerror(errno));
			close(fd);
			return 2;
		}
		off += (size_t)n;
	}
	in = fdopen(fd, "r");
	if (!in) {
		close(fd);
		return 2;
	}
	/* Data lines, then "ok [RESULT]" or "error MESSAGE". */
	while (fgets(buf, sizeof(buf), in)) {
		if (!strncmp(buf, "ok", 2) &&
		    (buf[2] == '\n' || buf[2] == ' ')) {
			if (buf[2] == ' ')
				fputs(buf + 3, stdout);
			ret = 0;
			break;
		}
		if (!strncmp(buf, "error ", 6)) {
			fprintf(stderr, PROG ": %s", buf + 6);
			ret = 1;
			break;
		}
		fputs(buf, stdout);
	}
	if (ret == 2)
		fprintf(stderr, PROG
			": the compositor closed the connection without an "
			"answer\n");
	fclose(in);
	return ret;
}
