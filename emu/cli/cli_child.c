/* Programs netloom starts (gnuplot): started with the signal dispositions
 * and limits netloom itself was started with, waited for with a grace
 * period, and their SVG read back and written atomically. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/output.h"
#include "core/staged.h"

void cli_gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\'')
			fputs("''", f);
		else
			fputc(c < 0x20 || c == 0x7f ? '_' : c, f);
	}
	fputc('\'', f);
}

/* What netloom was started with (cli_child_note_start), for the programs
 * it starts. Written once, first in main, then only read, in the child
 * between fork and exec, which no caller's context reaches. */
static struct cli_child_start {
	bool is_noted;
	struct sigaction xfsz, pipe; /* SIG_DFL or SIG_IGN: exec keeps no handler */
	struct rlimit nofile;
	bool has_nofile;
} cli_start;

void cli_child_note_start(void)
{
	cli_start.is_noted = sigaction(SIGXFSZ, NULL, &cli_start.xfsz) == 0 &&
			     sigaction(SIGPIPE, NULL, &cli_start.pipe) == 0;
	cli_start.has_nofile = getrlimit(RLIMIT_NOFILE, &cli_start.nofile) == 0;
}

int cli_child_start(struct cli_child *c, const char *cmd)
{
	extern char **environ;
	int fds[2];
	c->in = NULL;
	c->pid = -1;
	if (pipe2(fds, O_CLOEXEC) != 0)
		return -errno;
	/* Ready before fork: netloom may have threads, so the child calls
	 * only async-signal-safe functions before exec. */
	char *const argv[] = {"sh", "-c", (char *)cmd, NULL};
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	if (pid == 0) {
		/* exec sets caught signals (SIGINT, SIGTERM, SIGHUP:
		 * out_signals_catch) to their default action, but keeps
		 * ignored ones ignored, and keeps the limits. The soft limit
		 * only is lowered: the hard one is netloom's start one still. */
		if (cli_start.is_noted) {
			sigaction(SIGXFSZ, &cli_start.xfsz, NULL);
			sigaction(SIGPIPE, &cli_start.pipe, NULL);
		}
		if (cli_start.has_nofile)
			setrlimit(RLIMIT_NOFILE, &cli_start.nofile);
		/* dup2 clears close-on-exec on the copy; a pipe end already
		 * at 0 (netloom's stdin closed) keeps it, cleared here. */
		if (fds[0] == STDIN_FILENO ? fcntl(fds[0], F_SETFD, 0) != 0 : dup2(fds[0], STDIN_FILENO) < 0)
			_exit(127);
		execve("/bin/sh", argv, environ);
		_exit(127);
	}
	close(fds[0]);
	c->pid = pid;
	c->in = fdopen(fds[1], "w");
	if (!c->in) {
		int e = errno;
		close(fds[1]); /* the shell reads an end of file */
		waitpid(pid, &(int){0}, 0);
		c->pid = -1;
		return -e;
	}
	return 0;
}

/* How long a program given netloom's interrupt has to end on it before
 * SIGKILL, in cli_child_wait's 100 ms ticks. */
#define CLI_CHILD_GRACE_TICKS 30

int cli_child_wait(struct cli_child *c)
{
	if (c->in)
		fclose(c->in);
	c->in = NULL;
	/* A SIGINT, SIGTERM or SIGHUP sent to netloom alone (kill PID, not
	 * the process group) was recorded by out_signals_catch's handler, whose SA_RESTART
	 * restarted waitpid: netloom waited for the program to finish (a
	 * gnuplot drawing for minutes), the staged chart with it. Held while
	 * we wait and taken here instead, it is passed on to the program,
	 * which is reaped (SIGKILL if it has not ended in 3 s), then raised
	 * again for the handler, so the caller's out_unstage or
	 * out_staged_del removes what is staged and ends netloom by it, as
	 * elsewhere. One netloom ignores (SIGINT in a script's background
	 * job, SIGHUP under nohup) is left to be ignored: blocked, it would be queued. SIGCHLD
	 * wakes the wait at the program's end; the 100 ms tick is for one
	 * lost to another child. */
	sigset_t set, old;
	sigemptyset(&set);
	for (size_t i = 0; i < OUT_N_SIGNALS; i++) {
		struct sigaction sa;
		if (sigaction(out_signals[i], NULL, &sa) == 0 && sa.sa_handler != SIG_IGN)
			sigaddset(&set, out_signals[i]);
	}
	sigaddset(&set, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	int st = 0, sig = 0, n_ticks = 0;
	pid_t r;
	while ((r = waitpid(c->pid, &st, WNOHANG)) == 0 || (r < 0 && errno == EINTR)) {
		int got = sigtimedwait(&set, NULL, &(struct timespec){.tv_nsec = 100000000});
		if (got > 0 && got != SIGCHLD && !sig) {
			sig = got;
			kill(c->pid, sig);
		} else if (got < 0 && sig && ++n_ticks == CLI_CHILD_GRACE_TICKS) {
			kill(c->pid, SIGKILL);
		}
	}
	int e = errno;
	if (sig)
		raise(sig); /* pending until the mask is restored */
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		errno = e;
		return -1;
	}
	c->pid = -1;
	return st;
}

void cli_child_why(int st, char *buf, size_t n)
{
	if (st < 0)
		snprintf(buf, n, "cannot wait for it: %s", strerror(errno));
	else if (WIFSIGNALED(st))
		snprintf(buf, n, "ended by signal %d, %s", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, n, "exit status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

void cli_xml_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default: fputc(*s, f); break;
		}
	}
}

int cli_gnuplot_run(const char *script, const char *tmp, struct nl_err *err)
{
	char *cmd = NULL;
	size_t cmd_len = 0;
	FILE *c = open_memstream(&cmd, &cmd_len);
	if (c) {
		fputs("exec gnuplot > '", c);
		for (const char *q = tmp; *q; q++)
			if (*q == '\'')
				fputs("'\\''", c);
			else
				fputc(*q, c);
		fputs("'", c);
	}
	if (!c || fclose(c) != 0) {
		free(cmd);
		return nl_errf(err, NL_ENOMEM, "out of memory");
	}
	struct cli_child child;
	int src = cli_child_start(&child, cmd);
	free(cmd);
	if (src < 0)
		return nl_errf(err, NL_EIO, "cannot run gnuplot: %s", strerror(-src));
	/* A gnuplot ended by an interrupt sent to the process group
	 * (`timeout -s INT`) makes our write raise SIGPIPE, whose default
	 * action would end netloom with the file staged: ignored while we
	 * write (set after it started, so not in gnuplot); the caller's
	 * out_unstage then ends the process by the interrupt, cleanly. */
	struct sigaction ign = {.sa_handler = SIG_IGN}, old_pipe;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old_pipe);
	errno = 0;
	fputs(script, child.in);
	fputs("\nunset output\n", child.in);
	bool is_sent = fflush(child.in) == 0 && !ferror(child.in);
	int e = errno;
	int st = cli_child_wait(&child);
	sigaction(SIGPIPE, &old_pipe, NULL);
	char how[96];
	cli_child_why(st, how, sizeof how);
	if (!is_sent)
		return nl_errf(err, NL_EIO, "gnuplot failed (cannot write to it: %s)", strerror(e));
	if (st != 0)
		return nl_errf(err, NL_EIO, "gnuplot failed (%s)", how);
	return 0;
}

int cli_plot_write(const char *opt, const char *out, const char *script, const char *written, struct nl_err *err)
{
	if (system("command -v gnuplot >/dev/null 2>&1") != 0)
		return nl_errf(err, NL_EUNSUPPORTED,
			       "%s %s: gnuplot not found; expected gnuplot on PATH (Debian: apt-get install "
			       "gnuplot-nox); %s",
			       opt, out, written);
	char *gp, *tmp = NULL, *svg = NULL;
	size_t len = 0;
	if (out_tmp_for_registered(out, &gp, err) < 0)
		return nl_err_prefix(err, "%s", opt);
	int rc = cli_gnuplot_run(script, gp, err);
	if (rc < 0)
		nl_err_prefix(err, "%s %s", opt, out);
	else if ((rc = out_read_svg(gp, out, &svg, &len, err)) < 0)
		nl_err_prefix(err, "%s", opt);
	out_unstage(&gp); /* and ends the process here if it was interrupted */
	if (rc == 0 && !strcmp(out, "-"))
		rc = out_write_atomic(out, svg, len, err);
	else if (rc == 0 && (rc = out_stage_registered(out, svg, len, &tmp, err)) == 0)
		rc = out_commit(&tmp, out, err);
	if (rc < 0 && svg) /* the SVG read, not written */
		nl_err_prefix(err, "%s", opt);
	free(svg);
	out_unstage(&tmp);
	return rc;
}
