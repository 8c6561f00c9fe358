/*
 * glcuda-compositor: the client. Like cage, the compositor runs one
 * command with WAYLAND_DISPLAY set to its socket and lives as long as it
 * (without one, it serves whoever connects until a signal stops it).
 * SPDX-License-Identifier: MIT
 */
#include "comp.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* libwayland's socket goes in $XDG_RUNTIME_DIR: without one (a CI job, a
 * container), a private directory of our own, removed at exit. */
int
runtime_dir_setup(struct comp *c)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	char tmpl[] = "/tmp/glcuda-compositor-XXXXXX";

	if (dir && *dir)
		return 0;
	if (!mkdtemp(tmpl)) {
		fprintf(stderr,
			COMP_NAME ": cannot create a runtime directory: %s\n",
			strerror(errno));
		return -1;
	}
	c->runtime_dir = strdup(tmpl);
	if (!c->runtime_dir || setenv("XDG_RUNTIME_DIR", tmpl, 1) < 0) {
		rmdir(tmpl);
		free(c->runtime_dir);
		c->runtime_dir = NULL;
		fprintf(stderr, COMP_NAME ": out of memory\n");
		return -1;
	}
	return 0;
}

void
runtime_dir_cleanup(struct comp *c)
{
	if (!c->runtime_dir)
		return;
	/* wl_display_destroy removed the socket and its lock file. */
	if (rmdir(c->runtime_dir) < 0)
		fprintf(stderr, COMP_NAME ": cannot remove %s: %s\n",
			c->runtime_dir, strerror(errno));
	unsetenv("XDG_RUNTIME_DIR");
	free(c->runtime_dir);
	c->runtime_dir = NULL;
}

/* SIGCHLD, through the event loop's signalfd. */
static int
on_sigchld(int sig, void *data)
{
	struct comp *c = data;

	client_reap(c);
	return 0;
}

void
client_reap(struct comp *c)
{
	int status;
	pid_t pid;

	if (c->client_pid <= 0)
		return;
	/* Children of the client's own are not ours to wait for. */
	do
		pid = waitpid(c->client_pid, &status, WNOHANG);
	while (pid < 0 && errno == EINTR);
	if (pid != c->client_pid)
		return;
	c->client_pid = 0;
	c->client_exited = true;
	c->client_status = status;
	if (c->running) {
		if (WIFEXITED(status))
			fprintf(stderr,
				COMP_NAME
				": the client exited with status %d\n",
				WEXITSTATUS(status));
		else if (WIFSIGNALED(status))
			fprintf(stderr,
				COMP_NAME
				": the client was killed by signal %d (%s)\n",
				WTERMSIG(status), strsignal(WTERMSIG(status)));
	}
	c->running = false;
}

int
launch_client(struct comp *c)
{
	sigset_t none;
	pid_t pid;

	c->sigchld_src =
		wl_event_loop_add_signal(c->loop, SIGCHLD, on_sigchld, c);
	if (!c->sigchld_src) {
		fprintf(stderr, COMP_NAME ": cannot watch SIGCHLD\n");
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, COMP_NAME ": fork: %s\n", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		/* The loop blocked the signals it handles (signalfd): the
		 * client starts with none blocked. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setenv("WAYLAND_DISPLAY", c->socket, 1);
		setenv("GLCUDA_COMPOSITOR_CONTROL", c->control_path, 1);
		/* No X11 or other fallbacks for toolkits. */
		unsetenv("DISPLAY");
		/* The y4m stream owns stdout: the client's output goes to
		 * stderr. */
		if (c->opt.output && !strcmp(c->opt.output, "-"))
			dup2(STDERR_FILENO, STDOUT_FILENO);
		execvp(c->opt.command[0], c->opt.command);
		fprintf(stderr, COMP_NAME ": cannot run %s: %s\n",
			c->opt.command[0], strerror(errno));
		_exit(127);
	}
	c->client_pid = pid;
	return 0;
}

/* At exit with the client still running (--frames, a signal): ask it to
 * go, and wait for it so that no zombie outlives us. Its connection is
 * already closed, so a well-behaved client exits on its own too. */
void
client_stop(struct comp *c)
{
	int status;

	if (c->client_pid <= 0)
		return;
	kill(c->client_pid, SIGTERM);
	while (waitpid(c->client_pid, &status, 0) < 0 && errno == EINTR)
		;
	c->client_pid = 0;
}
