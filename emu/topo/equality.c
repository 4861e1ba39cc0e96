/* equality: "equality:n=N,sa=A1/A2/..,sb=B1/B2/..[,p=P][,k=K]", also written
 * in the paper's notation "N14K6[-1,1,3,9](4)" or "N14K6P3[-1,1,3,9](4)"
 * (Liang et al., J. Supercomputing 2023, seed 002 §3.1-3.2).
 *
 * N routers (N even) numbered 0..N-1 on a ring. For every offset s in S_A
 * (odd values; -1 and 1 together make the ring) and S_B (even values, 2 ..
 * N/2; sb=0 means none), router i links to i + s (mod N) when i is even and
 * to i - s when i is odd. An odd offset joins an even and an odd router,
 * so it adds one link per router; an even offset adds two (i + s and i -
 * s), except s = N/2, which adds one. Hence eq. 1, the network radix:
 *   K = |S_A| + 2 |S_B| - [N/2 in S_B].
 * In the notation NnKk[S_A](S_B), n is N, k is K (terminals not counted:
 * "n14k6p3" has 14 switches, network radix 6 and 3 endpoints per switch,
 * Remark 1), so a router has K + p ports; p defaults to 0 ("not yet
 * specified", §3.2) and k= (0 = unchecked) is checked against eq. 1. Even
 * offsets above N/2 repeat N - s (footnote 1) and are rejected, as are
 * odd offsets equal mod N.
 *
 * Ports and the closed-form distance: struct topo_equality in topo.h; one
 * BFS from router 0 at build time fills dist0. Vertex-transitive: r -> r +
 * 2t keeps parity and the rule, and r -> 1 - r swaps even and odd routers
 * and maps every link to a link (Remark 2), so one BFS gives the diameter
 * and average distance of any size, 64,000 routers included.
 */
#include "topo/topo_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* Offsets per set; the paper's networks have a few dozen (K = 64 for its
 * 64,000-router n64000k64p16). */
#define EQUALITY_MAX_OFFSETS 1024

struct equality_params {
	int64_t n;           /* routers, even */
	struct param_vec sa; /* odd offsets (key=value form, up to PARAM_VEC_MAX) */
	struct param_vec sb; /* even offsets, "0" = none */
	int64_t p;           /* endpoints per router */
	int64_t k;           /* expected network radix, 0 = unchecked */
	/* Not parameters: the offset lists in full, filled by the notation
	 * parser (any length) or copied from sa/sb by build. */
	int n_a, n_b;
	int64_t a[EQUALITY_MAX_OFFSETS], b[EQUALITY_MAX_OFFSETS];
};

static const struct param_def equality_params_def[] = {
	{"n", PARAM_INT, offsetof(struct equality_params, n), NULL, 4, 1 << 24, "routers N (even)", NULL},
	{"sa", PARAM_LIST, offsetof(struct equality_params, sa), NULL, -(1 << 24), 1 << 24,
	 "odd offsets S_A, e.g. -1/1/3/9", NULL},
	{"sb", PARAM_LIST, offsetof(struct equality_params, sb), "0", 0, 1 << 24,
	 "even offsets S_B (2..N/2), e.g. 4; 0 = none", NULL},
	{"p", PARAM_INT, offsetof(struct equality_params, p), "0", 0, 65536,
	 "endpoints per router (0 = not specified, as in the N..K..[..](..) notation)", NULL},
	{"k", PARAM_INT, offsetof(struct equality_params, k), "0", 0, 1 << 20,
	 "network radix K to check against eq. 1; 0 = no check", NULL},
	{NULL, 0, 0, NULL, 0, 0, NULL, NULL},
};

struct equality_state {
	struct topo_equality eq;
};

/* The number "[-+]digits" (any length) at *s: advances *s past it and
 * returns its length, 0 when there is none. Its value is checked by
 * equality_set, so the notation and the key=value form refuse alike. */
static size_t equality_number(const char **s)
{
	const char *p = *s;
	p += *p == '-' || *p == '+';
	if (!isdigit((unsigned char)*p))
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	size_t n = (size_t)(p - *s);
	*s = p;
	return n;
}

/* Set parameter d (at d's offset in out) from the n characters at text
 * through param_set: the key=value form's bounds and messages. */
static int equality_set(const struct param_def *d, void *out, const char *text, size_t n, struct nl_err *err)
{
	char buf[64], *v = n < sizeof buf ? buf : malloc(n + 1);
	if (!v)
		return nl_errf(err, NL_ENOMEM, "out of memory");
	memcpy(v, text, n);
	v[n] = '\0';
	int rc = param_set(d, out, v, "topology 'equality'", err);
	if (v != buf)
		free(v);
	return rc;
}

/* Parse a comma-separated list up to `close` into v[0..*n), each element
 * checked as one integer within the bounds of list parameter def (an
 * empty list is allowed). Returns 0, 1 when the text is not such a list,
 * or a negative error (an element out of range, named alone, or more than
 * EQUALITY_MAX_OFFSETS of them). */
static int equality_list(const char **s, char close, const struct param_def *def, int64_t *v, int *n,
			 struct nl_err *err)
{
	struct param_def one = *def; /* one element, written to v[*n] */
	const char *p = *s;
	*n = 0;
	one.type = PARAM_INT;
	one.offset = 0;
	while (*p == ' ')
		p++;
	if (*p == close) {
		*s = p + 1;
		return 0;
	}
	for (;;) {
		while (*p == ' ')
			p++;
		const char *num = p;
		size_t len = equality_number(&p);
		if (len == 0)
			return 1;
		if (*n == EQUALITY_MAX_OFFSETS) /* it said "cannot read", as if the notation were wrong */
			return nl_errf(err, NL_ERANGE,
				       "topology 'equality': parameter '%s': more than %d offsets; expected at most %d "
				       "per set in the notation (%d in the key=value form)",
				       def->name, EQUALITY_MAX_OFFSETS, EQUALITY_MAX_OFFSETS, PARAM_VEC_MAX);
		int rc = equality_set(&one, &v[*n], num, len, err);
		if (rc < 0)
			return rc;
		(*n)++;
		while (*p == ' ')
			p++;
		if (*p == close) {
			*s = p + 1;
			return 0;
		}
		if (*p++ != ',')
			return 1;
	}
}

/* The notation's one message for text it cannot read. */
static int equality_unread(const char *spec, struct nl_err *err)
{
	return nl_errf(err, NL_EFORMAT,
		       "topology 'equality': cannot read '%s': expected N<routers>K<radix>[P<endpoints>][odd offsets](even offsets), e.g. N14K6[-1,1,3,9](4)",
		       spec);
}

/* equality_unread naming what is missing after a letter (at s): "N14K[...]"
 * ("'K' is not followed by the network radix") or "N14[...]" (no K). */
static int equality_unread_after(const char *spec, const char *s, const char *what, struct nl_err *err)
{
	bool is_letter = *s == 'K' || *s == 'k' || *s == 'P' || *s == 'p';
	return nl_errf(err, NL_EFORMAT,
		       "topology 'equality': cannot read '%s': '%.*s' is not followed by %s; expected "
		       "N<routers>K<radix>[P<endpoints>][odd offsets](even offsets), e.g. N14K6[-1,1,3,9](4)",
		       spec, is_letter ? 1 : (int)(s - spec), is_letter ? s : spec, what);
}

/* The notation with its brackets swapped, "(S_A)[S_B]" at s: the lists
 * are in the paper's order, so the error names the spec with the brackets
 * the right way round (N14K6(-1,1,3,9)[4]: N14K6[-1,1,3,9](4)). Returns
 * 0 when the text after s is not that shape. */
static int equality_swapped(const char *spec, const char *s, struct nl_err *err)
{
	const char *a = s + 1, *a_end = strchr(a, ')');
	if (*s != '(' || !a_end || a_end[1] != '[' || memchr(a, '[', (size_t)(a_end - a)))
		return 0;
	const char *b = a_end + 2, *b_end = strchr(b, ']');
	if (!b_end || b_end[1] != '\0')
		return 0;
	return nl_errf(err, NL_EFORMAT,
		       "topology 'equality': cannot read '%s': expected '%.*s[%.*s](%.*s)' (the odd offsets S_A in [...], then the even offsets S_B in (...))",
		       spec, (int)(s - spec), spec, (int)(a_end - a), a, (int)(b_end - b), b);
}

/* The lists' contents swapped, "[S_B](S_A)" with s at '(': S_A's place
 * (pr->a, read) holds only even offsets and S_B's an odd one, which the
 * key=value bounds of S_B would refuse as "value '-1' out of range", a
 * parameter the notation does not name (N14K6[4](-1,1,3,9)). The error
 * names the spec the right way round; 0 when the text is not that. */
static int equality_contents_swapped(const char *spec, const char *a, const char *s,
				     const struct equality_params *pr, struct nl_err *err)
{
	int64_t b[EQUALITY_MAX_OFFSETS];
	int n_b;
	const char *p = s + 1;
	struct nl_err ignored = {0};
	if (equality_list(&p, ')', param_find(equality_params_def, "sa"), b, &n_b, &ignored) != 0 || *p != '\0')
		return 0;
	bool b_odd = false;
	for (int i = 0; i < n_b; i++)
		b_odd |= b[i] % 2 != 0;
	for (int i = 0; i < pr->n_a; i++)
		if (pr->a[i] % 2 != 0)
			return 0;
	if (!b_odd || pr->n_a == 0)
		return 0;
	const char *a_end = s - 1; /* the ']' */
	return nl_errf(err, NL_EFORMAT,
		       "topology 'equality': cannot read '%s': [%.*s] holds even offsets and (%.*s) odd ones; expected "
		       "'%.*s[%.*s](%.*s)' (the odd offsets S_A in [...], then the even offsets S_B in (...))",
		       spec, (int)(a_end - a), a, (int)(p - 1 - (s + 1)), s + 1, (int)(a - 1 - spec), spec,
		       (int)(p - 1 - (s + 1)), s + 1, (int)(a_end - a), a);
}

/* The paper's notation: N<n>K<k>[P<p>][S_A](S_B), letters in either case.
 * Once N<digits>K<digits> is read the spec is Equality's: its numbers get
 * the key=value form's range checks (n >= 4, p <= 65536, ...), and one
 * out of range is refused naming it, not left as "unknown topology". */
static int equality_parse_alias(const char *spec, void *params, struct nl_err *err)
{
	struct equality_params *pr = params;
	const char *s = spec, *num[3] = {NULL, NULL, NULL};
	size_t len[3] = {0, 0, 0};
	static const char *const key[3] = {"n", "k", "p"};
	int rc;

	if ((*s != 'N' && *s != 'n') || !isdigit((unsigned char)s[1]))
		return 0;
	s++;
	num[0] = s;
	len[0] = equality_number(&s);
	/* N<digits> then K, or a list: the notation, whose faults are named
	 * (a K or P without its number was "unknown topology 'N14K[...]'"). */
	if (*s != 'K' && *s != 'k')
		return *s == '[' || *s == '(' ? equality_unread_after(spec, s, "K and the network radix", err) : 0;
	const char *letter = s++;
	num[1] = s;
	if (!(len[1] = equality_number(&s)))
		return equality_unread_after(spec, letter, "the network radix", err);
	if (*s == 'P' || *s == 'p') {
		letter = s++;
		num[2] = s;
		if (!(len[2] = equality_number(&s)))
			return equality_unread_after(spec, letter, "the endpoints per router", err);
	}
	if (*s != '\0' && *s != '[' && *s != '(')
		return 0;
	for (int i = 0; i < 3; i++)
		if (num[i] && (rc = equality_set(param_find(equality_params_def, key[i]), pr, num[i], len[i], err)) < 0)
			return rc;
	if (*s == '\0')
		return nl_errf(err, NL_EINVAL,
			       "topology 'equality': '%s' names a class of Equality networks (Remark 1); give the offsets as in N14K6[-1,1,3,9](4) or equality:n=,sa=,sb=",
			       spec);
	if (*s == '(') { /* the lists swapped, or S_B alone */
		rc = equality_swapped(spec, s, err);
		return rc ? rc : equality_unread(spec, err);
	}
	const char *a = ++s;
	rc = equality_list(&s, ']', param_find(equality_params_def, "sa"), pr->a, &pr->n_a, err);
	if (rc == 0) {
		if (*s == '(') {
			if ((rc = equality_contents_swapped(spec, a, s, pr, err)) < 0)
				return rc;
			s++;
			rc = equality_list(&s, ')', param_find(equality_params_def, "sb"), pr->b, &pr->n_b, err);
		} else {
			rc = 1;
		}
	}
	if (rc < 0)
		return rc;
	if (rc > 0 || *s != '\0')
		return equality_unread(spec, err);
	if (pr->n_a == 0)
		return nl_errf(err, NL_EINVAL, "topology 'equality': '%s': S_A (in [...]) is empty", spec);
	return 1;
}

/* The port table's limits for N routers of K network ports and p
 * endpoints each: build's check, and the design search's. */
int topo_equality_fits(uint32_t N, uint32_t K, uint64_t p, struct nl_err *err)
{
	char given[96];

	snprintf(given, sizeof given, "parameters n=%u, p=%llu with radix K=%u", N, (unsigned long long)p, K);
	return topo_size_check_named(topo_equality_ops.name, given, N, (double)N * (double)(K + p), (double)N * (double)p,
				     err);
}

static int equality_build(struct topo *t, struct nl_err *err)
{
	struct equality_params *pr = t->params;
	struct equality_state *st = t->state;
	struct topo_equality *eq = &st->eq;
	uint32_t N = (uint32_t)pr->n, K = 0, *queue = NULL, *off = NULL;
	uint8_t *kind = NULL; /* per port: 0 odd offset, 1 +s, 2 -s, 3 s = N/2 */
	uint64_t p = (uint64_t)pr->p;
	int rc;

	if (pr->n_a == 0) { /* key=value form: take the parameter lists */
		pr->n_a = pr->sa.n;
		for (int i = 0; i < pr->sa.n; i++)
			pr->a[i] = pr->sa.v[i];
		pr->n_b = pr->sb.n == 1 && pr->sb.v[0] == 0 ? 0 : pr->sb.n;
		for (int i = 0; i < pr->n_b; i++)
			pr->b[i] = pr->sb.v[i];
	}
	if (N % 2)
		return topo_errf(t, err, NL_EINVAL, "parameter 'n': N = %u must be even (seed 002 §3.1)", N);
	off = malloc((size_t)(pr->n_a + 2 * pr->n_b) * sizeof *off);
	kind = malloc((size_t)(pr->n_a + 2 * pr->n_b) * sizeof *kind);
	if (!off || !kind) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	/* Offsets, checked and normalised mod N. */
	for (int i = 0; i < pr->n_a; i++) {
		int64_t s = pr->a[i];
		if (s % 2 == 0) {
			rc = topo_errf(t, err, NL_EINVAL, "parameter 'sa': %lld is even; S_A holds odd offsets (seed 002 §3.1)",
				       (long long)s);
			goto out;
		}
		if (s <= -(int64_t)N || s >= (int64_t)N) {
			rc = topo_errf(t, err, NL_ERANGE, "parameter 'sa': %lld is not between -N and N (N = %u)",
				       (long long)s, N);
			goto out;
		}
		off[K] = (uint32_t)((s + N) % N);
		kind[K] = 0;
		for (uint32_t j = 0; j < K; j++)
			if (off[j] == off[K]) {
				rc = topo_errf(t, err, NL_EINVAL,
					       "parameter 'sa': offsets %lld and %lld are equal mod N = %u and would make the same links",
					       (long long)pr->a[j], (long long)s, N);
				goto out;
			}
		K++;
	}
	for (int i = 0; i < pr->n_b; i++) {
		int64_t s = pr->b[i];
		if (s % 2) {
			rc = topo_errf(t, err, NL_EINVAL, "parameter 'sb': %lld is odd; S_B holds even offsets (seed 002 §3.1)",
				       (long long)s);
			goto out;
		}
		if (s < 2 || s > N / 2) {
			rc = topo_errf(t, err, NL_ERANGE,
				       "parameter 'sb': %lld is not in 2..N/2 = %u (an even offset s > N/2 makes the links of N - s, §3.1 footnote 1)",
				       (long long)s, N / 2);
			goto out;
		}
		for (int j = 0; j < i; j++)
			if (pr->b[j] == s) {
				rc = topo_errf(t, err, NL_EINVAL, "parameter 'sb': offset %lld is given twice", (long long)s);
				goto out;
			}
		if ((uint32_t)s == N / 2) {
			off[K] = (uint32_t)s;
			kind[K++] = 3;
		} else {
			off[K] = (uint32_t)s;
			kind[K++] = 1;
			off[K] = N - (uint32_t)s;
			kind[K++] = 2;
		}
	}
	if (pr->k && (uint64_t)pr->k != K) {
		rc = topo_errf(t, err, NL_EINVAL,
			       "parameter 'k': the offsets give network radix K = %u (eq. 1: |S_A| + 2|S_B| - [N/2 in S_B]), not %lld",
			       K, (long long)pr->k);
		goto out;
	}
	pr->k = K;
	rc = topo_equality_fits(N, K, p, err);
	if (rc < 0)
		goto out;
	eq->N = N;
	eq->K = K;
	eq->p = (uint32_t)p;
	eq->offset = off;
	off = NULL;
	eq->dist0 = malloc((size_t)N * sizeof *eq->dist0);
	queue = malloc((size_t)N * sizeof *queue);
	if (!eq->dist0 || !queue) {
		rc = nl_errf(err, NL_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = topo_alloc(t, N, NULL, K + (uint32_t)p, N * (uint32_t)p, err)) < 0)
		goto out;
	for (uint32_t i = 0; i < N; i++) {
		for (uint32_t j = 0; j < K; j++) {
			uint32_t s = eq->offset[j], nb = i % 2 == 0 ? (i + s) % N : (i + N - s) % N;
			switch (kind[j]) {
			case 0: /* the even router makes the link; same port index at both ends */
				if (i % 2 == 0)
					topo_connect(t, i, j, nb, j);
				break;
			case 1: /* +s meets the neighbour's -s port */
				topo_connect(t, i, j, nb, j + 1);
				break;
			case 3: /* s = N/2: one port, joined once */
				if (nb > i)
					topo_connect(t, i, j, nb, j);
				break;
			default:
				break;
			}
		}
		for (uint32_t e = 0; e < p; e++)
			topo_attach(t, i * (uint32_t)p + e, i, K + e);
	}
	topo_bfs(t, 0, eq->dist0, queue);
	for (uint32_t r = 0; r < N; r++)
		if (eq->dist0[r] == UINT32_MAX) {
			rc = topo_errf(t, err, NL_EINVAL,
				       "parameters 'sa', 'sb': the offsets leave router %u unreachable from router 0 (the network is not connected)",
				       r);
			goto out;
		}
	rc = 0;
out:
	free(queue);
	free(off);
	free(kind);
	return rc;
}

/* Canonical spec in the paper's notation, which holds lists of any length:
 * N<N>K<K>[P<p>][S_A](S_B). */
static int equality_format_spec(const struct topo *t, char *buf, size_t cap)
{
	const struct equality_params *pr = t->params;
	size_t used = (size_t)snprintf(buf, cap, "N%lldK%lld", (long long)pr->n, (long long)pr->k);
	if (pr->p)
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "P%lld", (long long)pr->p);
	for (int set = 0; set < 2; set++) {
		const int64_t *v = set ? pr->b : pr->a;
		int n = set ? pr->n_b : pr->n_a;
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%c", set ? '(' : '[');
		for (int i = 0; i < n; i++)
			used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%s%lld", i ? "," : "",
						 (long long)v[i]);
		used += (size_t)snprintf(buf + used, used < cap ? cap - used : 0, "%c", set ? ')' : ']');
	}
	return 1;
}

static void equality_release(struct topo *t)
{
	struct equality_state *st = t->state;
	free(st->eq.offset);
	free(st->eq.dist0);
}

static uint32_t equality_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	return topo_equality_distance(t->state, a, b);
}

const struct topo_ops topo_equality_ops = {
	.name = "equality",
	.help = "Equality chordal ring: N even, odd offsets S_A, even offsets S_B; also N14K6[-1,1,3,9](4) (seed 002)",
	.params = equality_params_def,
	.params_size = sizeof(struct equality_params),
	.state_size = sizeof(struct equality_state),
	.flags = TOPO_F_VERTEX_TRANSITIVE,
	.build = equality_build,
	.release = equality_release,
	.distance = equality_distance,
	.parse_alias = equality_parse_alias,
	.format_spec = equality_format_spec,
};
