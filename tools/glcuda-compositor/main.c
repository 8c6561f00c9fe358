/*
 * glcuda-compositor: setup, the loop, and the report at exit.
 * SPDX-License-Identifier: MIT
 */
#include "comp.h"
#include "buffer/buffer.h"
#include "control/control.h"
#include "output/output.h"
#include "render/render.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"

static int
on_quit_signal(int sig, void *data)
{
	struct comp *c = data;

	c->running = false;
	return 0;
}

/* Where clients connect and tests drive: shell assignments, one a line,
 * on stdout (stderr when the y4m stream has stdout), before any client
 * runs. A script reads them from a pipe instead of waiting. */
static void
announce(struct comp *c)
{
	FILE *out =
		c->opt.output && !strcmp(c->opt.output, "-") ? stderr : stdout;
	const char *dir = getenv("XDG_RUNTIME_DIR");

	fprintf(out,
		"WAYLAND_DISPLAY=%s\nXDG_RUNTIME_DIR=%s\n"
		"GLCUDA_COMPOSITOR_SOCKET=%s/%s\n"
		"GLCUDA_COMPOSITOR_CONTROL=%s\n",
		c->socket, dir, dir, c->socket, c->control_path);
	fflush(out);
}

static void
report(struct comp *c)
{
	double secs = (double)(clock_now_ns() - c->start_ns) * 1e-9;

	fprintf(stderr,
		COMP_NAME
		": %llu frames composited in %.2f s (%.1f/s), %llu presented, "
		"%llu dropped, %llu vblanks with the ring full, %llu output "
		"frames (%llu vblanks "
		"skipped, the loop over a second late); sync %s\n",
		(unsigned long long)c->composited, secs,
		secs > 0 ? (double)c->composited / secs : 0,
		(unsigned long long)c->out.presented,
		(unsigned long long)glcuda_ring_get_dropped(c->ring),
		(unsigned long long)c->acquire_busy,
		(unsigned long long)c->out.frames,
		(unsigned long long)c->out.skipped,
		glcuda_sync_mode_get_name(
			glcuda_device_get_caps(c->dev)->sync_mode));
	if (c->t_count) {
		double n = (double)c->t_count * 1e6;
		fprintf(stderr,
			COMP_NAME
			": mean GPU timings over %llu frames (ms): composite "
			"%.3f, "
			"hand-off to CUDA %.3f, CUDA %.3f, hand-off to GL "
			"%.3f, total %.3f\n",
			(unsigned long long)c->t_count, (double)c->t_render / n,
			(double)c->t_to_cuda / n, (double)c->t_cuda / n,
			(double)c->t_to_gl / n, (double)c->t_total / n);
	} else {
		fprintf(stderr, COMP_NAME ": no GPU timings (%s)\n",
			c->ring_timings ? "none finished yet"
					: "GL has no timer queries");
	}
}

int
main(int argc, char **argv)
{
	struct comp c = { .out.vblank_fd = -1,
			  .control_fd = -1,
			  .running = true,
			  .next_x = 32,
			  .next_y = 32 };
	sigset_t sigs;
	int ret;

	ret = options_parse(&c.opt, argc, argv);
	if (ret)
		return ret - 1;
	/* A client that dies mid-write must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	/* The loop takes SIGCHLD, SIGINT and SIGTERM through a signalfd, which
	 * sees only signals blocked in every thread: block them now, before
	 * the GL, Vulkan and CUDA drivers start theirs (which inherit the
	 * mask), or the kernel may hand SIGCHLD to a driver thread and the
	 * client's exit goes unnoticed. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGCHLD);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	if (runtime_dir_setup(&c) < 0)
		return 1;
	output_events_init(&c);
	if (display_init(&c) < 0 || render_init(&c) < 0 || !dmabuf_init(&c) ||
	    output_init(&c) < 0 || capture_init(&c) < 0)
		goto out;
	c.sigint_src =
		wl_event_loop_add_signal(c.loop, SIGINT, on_quit_signal, &c);
	c.sigterm_src =
		wl_event_loop_add_signal(c.loop, SIGTERM, on_quit_signal, &c);
	if (!c.sigint_src || !c.sigterm_src) {
		fprintf(stderr,
			COMP_NAME ": cannot watch SIGINT and SIGTERM\n");
		goto out;
	}
	if (control_init(&c) < 0)
		goto out;
	announce(&c);
	if (c.opt.command && launch_client(&c) < 0)
		goto out;
	fprintf(stderr,
		COMP_NAME
		": %ux%u at %u Hz on %s (%s), CUDA stage %s, sync %s, "
		"WAYLAND_DISPLAY=%s\n",
		c.opt.width, c.opt.height, c.opt.refresh_hz,
		glcuda_device_get_caps(c.dev)->gl_renderer,
		glcuda_headless_get_description(c.headless),
		c.opt.kernel_file ? c.opt.kernel_name
				  : filter_name(c.opt.filter),
		glcuda_sync_mode_get_name(
			glcuda_device_get_caps(c.dev)->sync_mode),
		c.socket);

	c.start_ns = clock_now_ns();
	while (c.running) {
		wl_display_flush_clients(c.display);
		if (wl_event_loop_dispatch(c.loop, -1) < 0 && errno != EINTR) {
			fprintf(stderr,
				COMP_NAME ": wl_event_loop_dispatch: %s\n",
				strerror(errno));
			c.status = 1;
			break;
		}
	}
	report(&c);
	if (c.status == 0 && c.client_exited &&
	    !(c.opt.frames && c.out.window_frames >= c.opt.frames)) {
		/* Like cage: the client's exit status is ours. */
		if (WIFEXITED(c.client_status))
			c.status = WEXITSTATUS(c.client_status);
		else if (WIFSIGNALED(c.client_status))
			c.status = 128 + WTERMSIG(c.client_status);
	}
	goto done;
out:
	c.status = 1;
done:
	/* Teardown with the context current: the clients (their textures),
	 * then the output, the ring and the device. */
	if (c.sigint_src)
		wl_event_source_remove(c.sigint_src);
	if (c.sigterm_src)
		wl_event_source_remove(c.sigterm_src);
	output_fini(&c);
	capture_fini(&c);
	control_fini(&c);
	if (c.display)
		wl_display_destroy_clients(c.display);
	client_stop(&c);
	if (c.sigchld_src)
		wl_event_source_remove(c.sigchld_src);
	render_fini(&c);
	display_fini(&c);
	runtime_dir_cleanup(&c);
	return c.status;
}
