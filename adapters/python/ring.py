#!/usr/bin/python3
"""Python twin of adapters/examples/ring.c (same ops, same output lines):
   ring.py ENDPOINT RANK ITERS BYTES [JOB]
RANK is a world rank of job JOB (default 1; `netloom serve --jobs`,
docs/live.md "Jobs"), and the ring is the job's ranks in order
(job_first, job_size): all ranks without --jobs.
Exit 0 on success, 1 on any error (one line naming the op) or wrong
payload, 2 on a bad argument."""
import os
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netloom_client as nl  # noqa: E402


def arg_num(i, name, top):
    """sys.argv[i] as a decimal number 0..top, or a line naming it and exit
    2, as live_ring says it (int() takes '1_0', ' 5' and '+5')."""
    s = sys.argv[i]
    if not re.fullmatch('[0-9]+', s, re.ASCII) or int(s) > top:
        print("ring.py: %s '%s': expected a decimal number 0..%d" % (name, s, top), file=sys.stderr)
        sys.exit(2)
    return int(s)


class Failed(Exception):
    """An op failed: ring.py prints one line naming it, as live_ring does."""


def step(what, fn, *args):
    """fn(*args), a NetloomError turned into Failed('WHAT: error')."""
    try:
        return fn(*args)
    except nl.NetloomError as e:
        raise Failed('%s: %s' % (what, e)) from None


def ring(c, rank, iters, nbytes):
    # Over the job's ranks, first..first+n-1 (world ranks on the wire): the
    # server refuses a message to another job's rank.
    first, n = c.job_first, c.job_size
    right, left = first + (rank - first + 1) % n, first + (rank - first + n - 1) % n
    for it in range(iters):
        step('compute', c.compute, 1000000 * (1 + rank % 3))
        out = struct.pack('<iI', it, rank) + bytes([(rank + it) & 0xFF]) * (nbytes - 8)
        req = step('isend', c.isend, right, it, out)
        st = step('recv', c.recv, left, it, nbytes)
        got_it, got_from = struct.unpack('<iI', st.data[:8])
        if got_it != it or got_from != left or st.source != left or len(st.data) != nbytes \
                or (nbytes > 8 and st.data[-1] != (left + it) & 0xFF):
            raise Failed('rank %d iteration %d: wrong payload' % (rank, it))
        print('recv %d %d %d %d %d %d' % (st.source, st.tag, len(st.data), st.t_sent_ps, st.t_arrived_ps,
                                          st.t_done_ps))
        step('wait', c.wait, req)
    total = step('allreduce', c.allreduce_sum, [float(rank)])[0]
    want = n * first + n * (n - 1) / 2  # the sum of the job's world ranks
    if total != want:
        raise Failed('allreduce gave %g, expected %g' % (total, want))
    step('barrier', c.barrier)
    print('rank %d done t=%d ps' % (rank, c.now_ps))


def main():
    if len(sys.argv) not in (5, 6):
        print('usage: ring.py ENDPOINT RANK ITERS BYTES [JOB]', file=sys.stderr)
        sys.exit(2)
    endpoint = sys.argv[1]
    rank, iters = arg_num(2, 'RANK', 2**32 - 1), arg_num(3, 'ITERS', 2**31 - 1)
    nbytes = max(8, arg_num(4, 'BYTES', 2**32 - 1))
    job = arg_num(5, 'JOB', 2**32 - 1) if len(sys.argv) == 6 else 1  # HELLO's job field is 32 bits
    # Over CURVE when both key files are named, as live_ring (docs/live.md
    # "Encryption"); one alone is refused rather than connecting in plain text.
    srv, key = os.environ.get('NETLOOM_CURVE_SERVER'), os.environ.get('NETLOOM_CURVE_KEY')
    if (srv is None) != (key is None):
        print('ring.py: %s set without %s, expected both (CURVE) or neither'
              % (('NETLOOM_CURVE_SERVER', 'NETLOOM_CURVE_KEY') if key is None
                 else ('NETLOOM_CURVE_KEY', 'NETLOOM_CURVE_SERVER')), file=sys.stderr)
        sys.exit(2)
    # Errors are one line and exit status 1, as live_ring's (a traceback
    # ended every failed connect or op).
    c = None
    try:
        c = step('connect', nl.Client, endpoint, rank, job, 0, 20000, srv, key)
        ring(c, rank, iters, nbytes)
        step('close', c.close)
    except Failed as e:
        print('ring.py: %s' % e, file=sys.stderr)
        if c is not None:
            try:
                c.close()
            except nl.NetloomError:
                pass  # the error above is the one to report
        sys.exit(1)


if __name__ == '__main__':
    main()
