#!/usr/bin/python3
"""Python twin of adapters/examples/ring.c (same ops, same output lines):
   ring.py ENDPOINT RANK ITERS BYTES"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netloom_client as nl  # noqa: E402


def main():
    endpoint, rank, iters, nbytes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), max(8, int(sys.argv[4]))
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
