/* Commands under mpirun: every rank checks that all ranks run the same
 * build with the same words before any work, and a stop is said once. */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/error.h"
#include "core/version.h"
#include "net/net.h"

/* The words every rank of a launch must share, each ended by a NUL: the
 * build, then the command and its arguments as given. *len its bytes;
 * NULL when out of memory. */
static char *cli_mpi_words(int argc, char **argv, size_t *len)
{
	const char *build = version_build();
	size_t n = strlen(build) + 1;
	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	char *w = malloc(n);
	if (!w)
		return NULL;
	size_t k = strlen(build) + 1;
	memcpy(w, build, k);
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]) + 1;
		memcpy(w + k, argv[i], l);
		k += l;
	}
	*len = n;
	return w;
}

/* The words of [w, end) into out (room for end - w of them); returns
 * their count. */
static size_t cli_mpi_split(const char *w, const char *end, const char **out)
{
	size_t n = 0;
	for (; w < end; w += strlen(w) + 1)
		out[n++] = w;
	return n;
}

/* An option's word: '-' and more ('-' alone is a value: stdin, stdout). */
static bool cli_is_option(const char *w)
{
	return w[0] == '-' && w[1];
}

/* Word i of w[0..n) in the user's terms, quoted: with its option when it
 * is an option's value, and with its value when it is an option
 * ("'--rates 0.1:0.5:0.1'"); past the end, "nothing more". Words 0 (the
 * build) and 1 (the command) stand alone. */
static void cli_mpi_part(char *buf, size_t size, const char *const *w, size_t n, size_t i)
{
	if (i >= n) {
		snprintf(buf, size, "nothing more");
		return;
	}
	size_t from = i >= 3 && cli_is_option(w[i - 1]) && !cli_is_option(w[i]) ? i - 1 : i;
	size_t to = i >= 2 && cli_is_option(w[i]) && i + 1 < n && !cli_is_option(w[i + 1]) ? i + 1 : i;
	size_t k = (size_t)snprintf(buf, size, "'");
	for (size_t j = from; j <= to && k < size; j++)
		k += (size_t)snprintf(buf + k, size - k, "%s%s", j > from ? " " : "", w[j]);
	if (k < size)
		snprintf(buf + k, size - k, "'");
}

/* The agreement on the command line: the first collectives of every
 * command under MPI, the same whatever the command and its options, so
 * ranks given different commands (`run : replay`) meet here too. 0, or
 * on every rank alike NL_ECONFIG (or NL_ENOMEM) with one line in *err
 * naming the lowest rank whose words differ from rank 0's and what
 * differs. */
static int cli_mpi_same_words(struct net_mpi *m, int argc, char **argv, struct nl_err *err)
{
	const uint32_t N = net_mpi_size(m);
	size_t len = 0, *at = calloc((size_t)N + 1, sizeof *at);
	char *mine = cli_mpi_words(argc, argv, &len);
	uint8_t *all = NULL;
	const char **w0 = NULL;
	int rc = at && mine ? 0 : nl_errf(err, NL_ENOMEM, "out of memory comparing the command lines of %u MPI ranks", N);
	if ((rc = net_mpi_agree(m, rc, err)) < 0 || (rc = net_mpi_allgather(m, mine, len, &all, at, err)) < 0)
		goto out;
	uint32_t r = 1;
	while (r < N && at[r + 1] - at[r] == at[1] && !memcmp(all + at[r], all, at[1]))
		r++;
	if (r >= N)
		goto out;
	/* Every rank has every rank's words: all take this branch. */
	const size_t lr = at[r + 1] - at[r];
	w0 = malloc((at[1] + lr) * sizeof *w0);
	if (!w0) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory comparing the command lines of %u MPI ranks", N);
		goto out;
	}
	const char **wr = w0 + at[1], *b = (const char *)all;
	const size_t n0 = cli_mpi_split(b, b + at[1], w0), nr = cli_mpi_split(b + at[r], b + at[r + 1], wr);
	size_t i = 0;
	while (i < n0 && i < nr && !strcmp(w0[i], wr[i]))
		i++;
	char theirs[200], zero[200];
	cli_mpi_part(theirs, sizeof theirs, wr, nr, i);
	cli_mpi_part(zero, sizeof zero, w0, n0, i);
	if (i == 0)
		rc = nl_errf(err, NL_ECONFIG,
			     "MPI rank %u of %u: its netloom build %s differs from rank 0's %s; expected the same netloom "
			     "on every rank",
			     r, N, theirs, zero);
	else
		rc = nl_errf(err, NL_ECONFIG,
			     "MPI rank %u of %u: its command line differs from rank 0's: %s where rank 0 has %s; expected "
			     "the same command and options on every rank",
			     r, N, theirs, zero);
out:
	free(w0);
	free(all);
	free(mine);
	free(at);
	return rc;
}

int cli_mpi_open(int argc, char **argv, struct net_mpi **m)
{
	const char *cmd = argv[0];
	uint32_t rank, size;
	*m = NULL;
	if (!net_mpi_launched(&rank, &size))
		return 0;
	if (!net_mpi_built()) {
		if (size <= 1)
			return 0;
		if (rank == 0)
			fprintf(stderr,
				"netloom %s: started by an MPI launcher with %u ranks, but this netloom was built without "
				"MPI (Debian: libopenmpi-dev), so it would run %u copies of the same work; run it without "
				"mpirun\n",
				cmd, size, size);
		return CLI_FAIL;
	}
	struct nl_err err = {0};
	if (net_mpi_open(cmd, m, &err) < 0) /* every rank ends with rank 0's status */
		return rank == 0 ? cli_report(&err) : cli_exit_code(&err);
	/* Every rank runs the same collectives only when all were given the
	 * same command and options (an MPMD launch may give them others). */
	if (cli_mpi_same_words(*m, argc, argv, &err) < 0) {
		int rc = net_mpi_rank(*m) == 0 ? cli_report(&err) : cli_exit_code(&err);
		net_mpi_close(*m);
		*m = NULL;
		return rc;
	}
	return 0;
}

int cli_mpi_stop_say(int argc, char **argv, int status, void (*say)(void *ctx), void *ctx)
{
	uint32_t rank, size;
	if (!net_mpi_launched(&rank, &size) || size <= 1 || !net_mpi_built()) {
		if (say)
			say(ctx);
		return status;
	}
	struct net_mpi *m = NULL;
	int rc = cli_mpi_open(argc, argv, &m);
	if (rc == 0 && say) {
		if (rank == 0) {
			say(ctx);
			fflush(stdout);
			fflush(stderr);
		}
		/* Every rank waits here until rank 0 has said it. */
		struct nl_err err = {0};
		(void)net_mpi_agree(m, 0, &err);
	}
	net_mpi_close(m);
	return rc ? rc : status;
}

int cli_mpi_stop(int argc, char **argv, int status)
{
	return cli_mpi_stop_say(argc, argv, status, NULL, NULL);
}
