#!/usr/bin/python3
"""Python twin of adapters/examples/ring.c (same ops, same output lines):
   ring.py ENDPOINT RANK ITERS BYTES"""
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


def main():
    if len(sys.argv) != 5:
        print('usage: ring.py ENDPOINT RANK ITERS BYTES', file=sys.stderr)
        sys.exit(2)
    endpoint = sys.argv[1]
    rank, iters = arg_num(2, 'RANK', 2**32 - 1), arg_num(3, 'ITERS', 2**31 - 1)
    nbytes = max(8, arg_num(4, 'BYTES', 2**32 - 1))
    c = nl.Client(endpoint, rank, job=1, timeout_ms=20000)
    n = c.size
    right, left = (rank + 1) % n, (rank + n - 1) % n
    for it in range(iters):
        c.compute(1000000 * (1 + rank % 3))
        out = struct.pack('<iI', it, rank) + bytes([(rank + it) & 0xFF]) * (nbytes - 8)
        req = c.isend(right, it, out)
        st = c.recv(left, it, nbytes)
        got_it, got_from = struct.unpack('<iI', st.data[:8])
        if got_it != it or got_from != left or st.source != left or len(st.data) != nbytes \
                or (nbytes > 8 and st.data[-1] != (left + it) & 0xFF):
            sys.exit('ring.py: rank %d iteration %d: wrong payload' % (rank, it))
        print('recv %d %d %d %d %d %d' % (st.source, st.tag, len(st.data), st.t_sent_ps, st.t_arrived_ps,
                                          st.t_done_ps))
        c.wait(req)
    total = c.allreduce_sum([float(rank)])[0]
    if total != n * (n - 1) / 2:
        sys.exit('ring.py: allreduce gave %g' % total)
    c.barrier()
    print('rank %d done t=%d ps' % (rank, c.now_ps))
    c.close()


if __name__ == '__main__':
    main()
