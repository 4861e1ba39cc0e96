#!/usr/bin/env python3
"""Live emulation end to end: `netloom serve` with real client processes.

usage: live.py CASE NETLOOM REPLAY_MSGS LIVE_RING LIVE_HALO PYDIR LIBCLIENT

Servers listen on ipc:// sockets in a temporary directory only. Every
process gets a timeout, so a case can fail but never hang.
"""
import json
import os
import re
import resource
import signal
import socket
import subprocess
import struct
import sys
import tempfile
import time
import traceback

CASE, NETLOOM, REPLAY, RING, HALO, PYDIR, LIBCLIENT = sys.argv[1:8]
PY = '/usr/bin/python3'  # Debian's interpreter, where python3-zmq lives
TMO = 60


def fail(msg):
    print('FAIL %s: %s' % (CASE, msg))
    stop_started()
    show_outputs()
    sys.exit(1)


# Every process a case starts (popen): a failing case stops those still
# running, or its servers stayed up until their own connect timeout (30 s)
# and its clients until theirs, after the suite had said FAIL.
STARTED = []
STOP_GRACE_S = 2


def popen(*args, **kwargs):
    p = subprocess.Popen(*args, **kwargs)
    STARTED.append(p)
    return p


def stop_started():
    """SIGTERM the case's processes still running (a server then writes
    its report, shown by show_outputs), SIGKILL those still there after
    STOP_GRACE_S, and reap them all."""
    alive = [p for p in STARTED if p.poll() is None]
    for p in alive:
        p.terminate()
    t_end = time.monotonic() + STOP_GRACE_S
    for p in alive:
        try:
            p.wait(max(0.0, t_end - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    if alive:
        print('--- %s: stopped %d process%s still running: %s' % (
            CASE, len(alive), '' if len(alive) == 1 else 'es',
            ', '.join('%d (%s)' % (p.pid, os.path.basename(str(p.args[0] if isinstance(p.args, list) else p.args)))
                      for p in alive)))


# The case's temporary directory and when it began: on failure, what its
# processes said is printed before the directory goes (with it, a flake
# seen once in a suite run left only its FAIL line).
TMP, T0 = None, time.monotonic()
SHOWN_BYTES = 3000


def show_outputs():
    """Print the servers' and clients' .out, .err and .json files of the
    case (each up to its last SHOWN_BYTES characters), once."""
    global TMP
    d, TMP = TMP, None
    if d is None:
        return
    names = sorted(n for n in os.listdir(d) if n.endswith(('.out', '.err', '.json')))
    print('--- %s failed after %.2f s; its files in %s: %s' % (CASE, time.monotonic() - T0, d,
                                                             ' '.join(sorted(os.listdir(d))[:200])))
    for n in names[:60]:
        try:
            text = open(os.path.join(d, n), errors='replace').read()
        except OSError as e:
            text = '(unreadable: %s)\n' % e.strerror
        cut = ', its last %d' % SHOWN_BYTES if len(text) > SHOWN_BYTES else ''
        print('--- %s (%d characters%s):' % (n, len(text), cut))
        print(text[-SHOWN_BYTES:], end='' if text.endswith('\n') or not text else '\n')
    if len(names) > 60:
        print('--- and %d more' % (len(names) - 60))


def expect(cond, msg):
    if not cond:
        fail(msg)


class Server:
    def __init__(self, d, n, *extra, name='s', preexec_fn=None):
        self.ep = 'ipc://%s/%s.sock' % (d, name)
        self.msgs = os.path.join(d, name + '.msgs')
        self.json = os.path.join(d, name + '.json')
        self.rec = os.path.join(d, name + '.nlt')
        self.out = os.path.join(d, name + '.out')
        self.err = os.path.join(d, name + '.err')
        args = [NETLOOM, 'serve', '--ranks', str(n), '--listen', self.ep, '--messages', self.msgs,
                '--json', self.json, '--record', self.rec] + list(extra)
        self.p = popen(args, stdout=open(self.out, 'w'), stderr=open(self.err, 'w'), preexec_fn=preexec_fn)
        # Wait for the socket so clients do not race the bind.
        path = self.ep[len('ipc://'):]
        t0 = time.time()
        while not os.path.exists(path):
            if self.p.poll() is not None or time.time() - t0 > 10:
                fail('server did not start: %s' % open(self.err).read())
            time.sleep(0.02)

    def wait(self):
        try:
            rc = self.p.wait(TMO)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail('server hung')
        return rc


def wait_ipc_clients(ep, n, timeout=10):
    """Wait until n clients hold a connection to the server's ipc endpoint
    (an accepted socket lists the bound path in /proc/net/unix beside the
    listening one). A fixed pause was not enough: on a loaded machine a C
    client could start after it, connect to a server already stopped,
    and wait its whole connect timeout for a WELCOME (live_signal)."""
    path, t0 = ep[len('ipc://'):], time.time()
    while True:
        lines = [l for l in open('/proc/net/unix') if l.rstrip('\n').endswith(' ' + path)]
        if len(lines) > n:
            return
        if time.time() - t0 > timeout:
            fail('%d clients did not connect to %s in %d s' % (n, ep, timeout))
        time.sleep(0.02)


def need_pyzmq():
    """Skip (77) where Debian's interpreter cannot import zmq (python3-zmq)."""
    if subprocess.run([PY, '-c', 'import zmq'], capture_output=True).returncode != 0:
        print('SKIP: %s cannot import zmq (python3-zmq)' % PY)
        sys.exit(77)


def py_session(d, n, name, text):
    """Server of n ranks (analytic) and one Python client running `text`
    (argv: PYDIR, the endpoint), which must exit 0: (server, its output)."""
    need_pyzmq()
    script = os.path.join(d, name + '.py')
    open(script, 'w').write(text)
    s = Server(d, n, '-s', 'backend=analytic')
    (rc, out), = clients([[PY, script, PYDIR, s.ep]], d, name)
    expect(rc == 0, 'client: %s' % out)
    return s, out


def clients(cmds, d, tag):
    return clients_wait(clients_start(cmds, d, tag))


def clients_start(cmds, d, tag):
    """Start the clients, which may be before their server: a client's
    socket connects once the server binds (ZeroMQ retries an ipc:// connect
    every 100 ms and queues the HELLO), so a server's connect window is not
    spent starting Python and importing zmq on a loaded machine."""
    procs = []
    for i, c in enumerate(cmds):
        out = os.path.join(d, '%s%d.out' % (tag, i))
        procs.append((popen(c, stdout=open(out, 'w'), stderr=subprocess.STDOUT), out))
    return procs


def clients_wait(procs):
    res = []
    for p, out in procs:
        try:
            rc = p.wait(TMO)
        except subprocess.TimeoutExpired:
            p.kill()
            fail('client hung: %s' % out)
        res.append((rc, open(out).read()))
    return res


def run_ring(d, n, iters=6, nbytes=64, extra=(), name='s', python=False):
    s = Server(d, n, *extra, name=name)
    if python:
        cmds = [[PY, os.path.join(PYDIR, 'ring.py'), s.ep, str(r), str(iters), str(nbytes)] for r in range(n)]
    else:
        cmds = [[RING, s.ep, str(r), str(iters), str(nbytes)] for r in range(n)]
    res = clients(cmds, d, name + 'c')
    for r, (rc, out) in enumerate(res):
        expect(rc == 0, 'client %d exited %d: %s' % (r, rc, out))
    rc = s.wait()
    expect(rc == 0, 'server exited %d: %s' % (rc, open(s.err).read()))
    return s, res


def replay_matches(s, d, extra=()):
    """The recorded session replays to the same message log, byte for byte."""
    out = os.path.join(d, 'replay.msgs')
    r = subprocess.run([REPLAY, s.rec, out] + list(extra), capture_output=True, text=True, timeout=TMO)
    expect(r.returncode == 0, 'replay failed: %s' % r.stderr)
    live, rep = open(s.msgs).read(), open(out).read()
    expect(live.count('\n') > 0, 'no messages logged')
    expect(live == rep, 'replayed message times differ from the live session')


def client_times_match(s, res):
    """What each client saw in DELIVER equals the server's log line."""
    log = {}
    for line in open(s.msgs):
        src, dst, tag, nbytes, _so, _ro, ts, ta, td = line.split()
        log[(src, dst, tag)] = (nbytes, ts, ta, td)
    seen = 0
    for rank, (_rc, out) in enumerate(res):
        for line in out.splitlines():
            if line.startswith('recv '):
                _, src, tag, nbytes, ts, ta, td = line.split()
                expect(log.get((src, str(rank), tag)) == (nbytes, ts, ta, td),
                       'rank %d saw %s, server logged %s' % (rank, line, log.get((src, str(rank), tag))))
                seen += 1
    expect(seen > 0, 'clients printed no receives')


def case_ring_record_replay(d):
    s, res = run_ring(d, 4, extra=('-s', 'backend=analytic'))
    replay_matches(s, d, ('backend=analytic',))
    client_times_match(s, res)
    rep = json.load(open(s.json))
    expect(rep['live']['delivered'] == 4 * 6 + 6, 'delivered %d' % rep['live']['delivered'])
    expect(rep['command'] == 'serve', 'command %r' % rep.get('command'))
    # The latency line counts the barrier's messages too, which the head
    # line's 'N messages delivered' does not: the split is said.
    m = rep['results']['messages']
    expect(m['collective']['count'] > 0 and
           '  message latency: %d messages (%d point-to-point, %d inside barriers), mean ' %
           (m['count'], m['p2p']['count'], m['collective']['count']) in open(s.out).read() and
           ', %d messages delivered\n' % m['p2p']['count'] in open(s.out).read(),
           'latency line: %s' % open(s.out).read())
    ver = subprocess.run([NETLOOM, 'version'], capture_output=True, text=True).stdout.split()
    expect(rep['netloom_version'] == ver[1], 'version %r, netloom version says %r' % (rep['netloom_version'], ver))
    expect(rep['netloom_build'] == (ver[3].rstrip(')') if len(ver) > 2 else ver[1]),
           'build %r, netloom version says %r' % (rep['netloom_build'], ver))
    example_args(d)


def example_args(d):
    """The examples refuse a malformed number, exit 2, before connecting:
    live_ring read RANK '1x' as 1 and 'abc' as 0 (taking another process's
    rank), ring.py took '1_0' as 10."""
    ep = 'ipc://%s/nobody.sock' % d
    cmds = [([RING, ep, '1x', '2', '16'], "live_ring: RANK '1x': expected a decimal number 0..4294967295"),
            ([RING, ep, 'abc', '2', '16'], "live_ring: RANK 'abc': expected a decimal number 0..4294967295"),
            ([RING, ep, '0', '2', '16', '2z'], "live_ring: RING '2z': expected a decimal number 0..4294967295"),
            ([HALO, ep, '0', '2x', '2', '16'], "live_halo: PX '2x': expected a decimal number 1..4294967295"),
            # PX 0 connected (taking the rank) before saying it forms no grid.
            ([HALO, ep, '0', '0', '2', '16'], "live_halo: PX '0': expected a decimal number 1..4294967295"),
            ([HALO, ep, '0', '2', '-1', '16'], "live_halo: ITERS '-1': expected a decimal number 0..2147483647"),
            # JOB, after the other arguments: the wire's 32 bits.
            ([RING, ep, '0', '2', '16', '0', '4294967296'],
             "live_ring: JOB '4294967296': expected a decimal number 0..4294967295"),
            ([HALO, ep, '0', '2', '2', '16', '2j'], "live_halo: JOB '2j': expected a decimal number 0..4294967295"),
            ([RING, ep, '0', '2', '16', '0', '1', 'x'], 'usage: live_ring ENDPOINT RANK ITERS BYTES [RING [JOB]]')]
    if subprocess.run([PY, '-c', 'import zmq'], capture_output=True).returncode == 0:
        cmds += [([PY, os.path.join(PYDIR, 'ring.py'), ep, '1_0', '2', '16'],
                  "ring.py: RANK '1_0': expected a decimal number 0..4294967295"),
                 ([PY, os.path.join(PYDIR, 'ring.py'), ep, '0', '2', '16', '-2'],
                  "ring.py: JOB '-2': expected a decimal number 0..4294967295"),
                 ([PY, os.path.join(PYDIR, 'ring.py'), ep, '0', '2'], 'usage: ring.py ENDPOINT RANK ITERS BYTES [JOB]')]
    for cmd, want in cmds:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TMO)
        expect(r.returncode == 2 and r.stderr == want + '\n' and not r.stdout,
               '%s: exit %d, %r, expected exit 2 and %r' % (cmd[1:], r.returncode, r.stderr, want))
    # A failed connect or op is one line and exit status 1 in both rings
    # (ring.py ended in a traceback), in the same words: the ERROR's code
    # named, then its text (the Python client left the name out).
    # The clients must reach the server before it evicts rank 0: 500 ms
    # was missed on a loaded 2-core host (no WELCOME, 20 s).
    s = Server(d, 1, '-s', 'backend=analytic', '--connect-timeout-ms', '3000', name='badrank')
    why = 'server refused HELLO: unknown rank: connection without a rank: HELLO: rank 3, expected 0..0'
    cmds = [([RING, s.ep, '3', '2', '16'], 'live_ring: connect: ' + why)]
    if subprocess.run([PY, '-c', 'import zmq'], capture_output=True).returncode == 0:
        cmds += [([PY, os.path.join(PYDIR, 'ring.py'), s.ep, '3', '2', '16'], 'ring.py: connect: ' + why)]
    for cmd, want in cmds:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=TMO)
        expect(r.returncode == 1 and r.stderr == want + '\n' and not r.stdout,
               '%s: exit %d, %r, expected exit 1 and %r' % (cmd[1:], r.returncode, r.stderr, want))
    s.wait()
    # PX not dividing the job's size, found once connected (it said
    # '3 ranks do not form a grid 2 wide', not what PX was expected to be).
    s = Server(d, 3, '-s', 'backend=analytic', '--connect-timeout-ms', '3000', name='halopx')
    r = subprocess.run([HALO, s.ep, '0', '2', '1', '16'], capture_output=True, text=True, timeout=TMO)
    want = "live_halo: PX '2': expected a divisor of the job's size (3): its ranks form a grid PX wide\n"
    expect(r.returncode == 2 and r.stderr == want and not r.stdout,
           'halo PX 2 of 3 ranks: exit %d, %r, expected exit 2 and %r' % (r.returncode, r.stderr, want))
    s.wait()


def case_rendezvous(d):
    """Messages above eager_threshold go by rendezvous (RTS/CTS/DATA); the
    payload still arrives intact and the recording replays to the same times."""
    net = ('-s', 'backend=analytic', '-s', 'eager_threshold=4096')
    s, res = run_ring(d, 4, iters=3, nbytes=100000, extra=net + ('--max-payload', '200000'))
    replay_matches(s, d, ('backend=analytic', 'eager_threshold=4096'))
    client_times_match(s, res)
    rep = json.load(open(s.json))['results']
    expect(rep['messages']['rendezvous'] >= 12, 'rendezvous messages: %s' % rep['messages'])


WILD = r'''
import struct
import sys
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
ep, r = sys.argv[2], int(sys.argv[3])
c = nl.Client(ep, r, timeout_ms=20000)
if r == 0:
    got = [c.recv(nl.ANY, nl.ANY) for _ in range(6)]
    for st in got:
        print('recv', st.source, st.tag, len(st.data), st.t_sent_ps, st.t_arrived_ps, st.t_done_ps)
    # Non-overtaking: from one source, matched in the order sent.
    for src in (1, 2, 3):
        tags = [st.tag for st in got if st.source == src]
        assert tags == sorted(tags), tags
    arrivals = [st.t_arrived_ps for st in got]
    assert arrivals == sorted(arrivals), arrivals
else:
    c.compute(1000000 * (4 - r))   # rank 3 speaks first in virtual time
    c.send(0, 10 * r, b'x' * r)
    c.compute(500000)
    c.send(0, 10 * r + 1, b'y' * r)
c.close()
'''


def case_wildcard(d):
    """ANY_SOURCE/ANY_TAG receives match in virtual arrival order, whatever
    order the processes start in, and replay the same."""
    need_pyzmq()
    script = os.path.join(d, 'wild.py')
    open(script, 'w').write(WILD)
    outs = []
    for run, order in enumerate(((0, 1, 2, 3), (3, 2, 1, 0))):
        s = Server(d, 4, '-s', 'backend=analytic', name='w%d' % run)
        res = clients([[PY, script, PYDIR, s.ep, str(r)] for r in order], d, 'w%d' % run)
        for rc, out in res:
            expect(rc == 0, 'wildcard client: %s' % out)
        expect(s.wait() == 0, 'server failed: %s' % open(s.err).read())
        replay_matches(s, d, ('backend=analytic',))
        outs.append((open(s.msgs).read(), [o for _, o in sorted(zip(order, [o for _, o in res]))]))
    expect(outs[0] == outs[1], 'start order changed the virtual times')
    first = [l.split() for l in outs[0][1][0].splitlines() if l.startswith('recv')]
    expect([x[1] for x in first] == ['3', '3', '2', '2', '1', '1'], 'match order: %s' % first)


def case_halo_record_replay(d):
    n, px = 6, 3
    s = Server(d, n, '-s', 'backend=analytic')
    res = clients([[HALO, s.ep, str(r), str(px), '4', '256'] for r in range(n)], d, 'h')
    for r, (rc, out) in enumerate(res):
        expect(rc == 0, 'halo client %d exited %d: %s' % (r, rc, out))
    expect(s.wait() == 0, 'server failed: %s' % open(s.err).read())
    replay_matches(s, d, ('backend=analytic',))
    lines = open(s.msgs).read().splitlines()
    expect(len(lines) == n * 4 * 4, '%d messages logged, expected %d' % (len(lines), n * 16))


def case_flit_ring(d):
    net = ('-s', 'backend=flit', '-s', 'topology=torus:k=4')
    s, res = run_ring(d, 4, extra=net)
    replay_matches(s, d, ('backend=flit', 'topology=torus:k=4'))
    client_times_match(s, res)


def case_python_ring(d):
    subprocess.run([PY, '-c', 'import zmq'], check=False)
    need_pyzmq()
    s, res = run_ring(d, 4, python=True, extra=('-s', 'backend=analytic'), name='py')
    replay_matches(s, d, ('backend=analytic',))
    client_times_match(s, res)
    # The same program in C gives the same virtual times, and the same
    # recording: every op alike, the allreduce's internal receives posted
    # with the exact size (8 bytes) by both, not the default capacity.
    c, _ = run_ring(d, 4, extra=('-s', 'backend=analytic'), name='c')
    expect(open(s.msgs).read() == open(c.msgs).read(), 'Python and C rings differ in virtual time')
    dec = [subprocess.run([NETLOOM, 'trace', 'dump', x.rec], capture_output=True, text=True, timeout=TMO)
           for x in (s, c)]
    expect(all(r.returncode == 0 for r in dec), 'trace dump: %s' % [r.stderr for r in dec])
    pyops, cops = dec[0].stdout.splitlines(), dec[1].stdout.splitlines()
    diff = [(a, b) for a, b in zip(pyops, cops) if a != b]
    expect(len(pyops) == len(cops) and not diff, 'Python and C recordings differ: %s' % diff[:3])
    expect(any('recv' in l and 'bytes=8' in l and 'tag=1073741824' in l for l in pyops),
           'no 8-byte allreduce receive recorded: %s' % [l for l in pyops if 'recv' in l][-3:])
    # The smallest ring message, 8 bytes (iteration and sender, no fill
    # byte): both examples failed their own check on it (the last byte is
    # the sender's, not the fill) and the session ended in a deadlock.
    for py in (False, True):
        run_ring(d, 2, iters=2, nbytes=8, extra=('-s', 'backend=analytic'), name='b8py' if py else 'b8c', python=py)
    # A receive smaller than the message: the Python client raises what the
    # C client reports (it returned the whole oversized payload before).
    script = os.path.join(d, 'cap.py')
    open(script, 'w').write(CAP)
    t = Server(d, 2, '-s', 'backend=analytic', name='cap')
    res = clients([[PY, script, PYDIR, t.ep, str(r)] for r in range(2)], d, 'cap')
    expect(res[0][0] == 0 and res[0][1].strip() == 'compute: compute: duration 9223372036854775808 ps, expected at '
           'most 2^62 = 4611686018427387904 ps', 'sender: %s' % res[0][1])
    expect(res[1][0] == 0 and res[1][1].splitlines()[0] ==
           'error: message of 1000 bytes truncated: the receive had room for 10', 'receiver: %s' % res[1][1])
    expect('nonblocking: message of 1000 bytes truncated: the receive had room for 999' in res[1][1] and
           'exact: 1000' in res[1][1], 'receiver: %s' % res[1][1])
    expect(t.wait() == 0, 'server: %s' % open(t.err).read())


CAP = r'''
import struct
import sys
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
ep, r = sys.argv[2], int(sys.argv[3])
c = nl.Client(ep, r, timeout_ms=20000)
if r == 0:
    try:  # refused by the client itself: no seq taken, the session goes on
        c.compute(2**63)
    except nl.NetloomError as e:
        print('compute:', e)
    for i in range(3):
        c.send(1, i, b'x' * 1000)
else:
    try:
        print('returned', len(c.recv(0, 0, cap=10).data))
    except nl.NetloomError as e:
        print('error:', e)
    q = c.irecv(0, 1, cap=999)
    try:
        print('returned', len(c.wait(q).data))
    except nl.NetloomError as e:
        print('nonblocking:', e)
    print('exact:', len(c.recv(0, 2, cap=1000).data))
c.close()
'''


BIGPAY = r"""
import struct
import sys
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
ep, r = sys.argv[2], int(sys.argv[3])
c = nl.Client(ep, r, timeout_ms=20000)
if r == 0:
    for call in (c.send, c.isend):  # refused by the client: nothing sent, no seq taken
        try:
            call(1, 0, bytes(2000000))
            print('sent')
        except nl.NetloomError as e:
            print('refused:', e)
    c.send(1, 0, b'z' * 1048576)  # the limit itself is allowed
    c.send(1, 1, b'small')
else:
    print('got', len(c.recv(0, 0).data), c.recv(0, 1).data.decode())
c.close()
"""


# The largest legal WAITALL (4096 requests, 16 KiB of payload) under
# --max-payload 0: both ranks finish.
WAITALLPAY = r"""
import struct
import sys
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
r = int(sys.argv[3])
c = nl.Client(sys.argv[2], r, timeout_ms=10000)
if r == 0:
    reqs = [c.isend(1, i % 100, b'') for i in range(4096)]
else:
    reqs = [c.irecv(0, i % 100, 0) for i in range(4096)]
c.waitall(reqs)
c.close()
print('ok')
"""


# Both clients alike: the C client through ctypes with the Python client's
# calls (CLIENT_PRE), then a script. argv: PYDIR LIBCLIENT LANG ENDPOINT [RANK].
CLIENT_PRE = r"""
import ctypes, sys, time
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
lib, lang, ep = sys.argv[2], sys.argv[3], sys.argv[4]


class CClient:
    # The C client with the Python client's calls: -1 raises NetloomError.
    def __init__(self, ep, rank, job=1, timeout_ms=10000):
        L = self.L = ctypes.CDLL(lib)
        P, U32, U64, I32, SZ = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int32, ctypes.c_size_t
        L.nl_client_connect.argtypes = [ctypes.POINTER(P), ctypes.c_char_p, U32, U64, U64, ctypes.c_int,
                                        ctypes.c_char_p, SZ]
        L.nl_client_error.restype = ctypes.c_char_p
        L.nl_client_error.argtypes = [P]
        L.nl_client_size.argtypes = [P]
        L.nl_client_send.argtypes = [P, U32, I32, ctypes.c_char_p, SZ]
        L.nl_client_isend.argtypes = [P, U32, I32, ctypes.c_char_p, SZ, ctypes.POINTER(U32)]
        L.nl_client_irecv.argtypes = [P, I32, I32, ctypes.c_char_p, SZ, ctypes.POINTER(U32)]
        L.nl_client_recv.argtypes = [P, I32, I32, ctypes.c_char_p, SZ, P]
        L.nl_client_wait.argtypes = [P, U32, P]
        L.nl_client_waitall.argtypes = [P, P, SZ, P]
        L.nl_client_compute.argtypes = [P, U64]
        L.nl_client_allreduce_sum.argtypes = [P, ctypes.POINTER(ctypes.c_double), SZ]
        L.nl_client_barrier.argtypes = L.nl_client_close.argtypes = [P]
        self.c, err = P(), ctypes.create_string_buffer(1024)
        if L.nl_client_connect(ctypes.byref(self.c), ep.encode(), rank, job, 0, timeout_ms, err, 1024) < 0:
            raise nl.NetloomError(err.value.decode())
        self.size = L.nl_client_size(self.c)
        self.bufs = {}

    def _ok(self, rc):
        if rc < 0:
            raise nl.NetloomError(self.L.nl_client_error(self.c).decode())

    def send(self, dst, tag, data):
        self._ok(self.L.nl_client_send(self.c, dst, tag, data, len(data)))

    def isend(self, dst, tag, data):
        q = ctypes.c_uint32()
        self._ok(self.L.nl_client_isend(self.c, dst, tag, data, len(data), ctypes.byref(q)))
        return q.value

    def irecv(self, src=-1, tag=-1, cap=64):
        q, b = ctypes.c_uint32(), ctypes.create_string_buffer(cap)
        self._ok(self.L.nl_client_irecv(self.c, src, tag, b, cap, ctypes.byref(q)))
        self.bufs[q.value] = b
        return q.value

    def recv(self, src=-1, tag=-1, cap=64):
        self._ok(self.L.nl_client_recv(self.c, src, tag, ctypes.create_string_buffer(cap), cap, None))

    def wait(self, q):
        self._ok(self.L.nl_client_wait(self.c, q, None))
        return self.bufs.pop(q).value if q in self.bufs else None

    def waitall(self, reqs):
        # Each status pre-filled with 0xff bytes: what waitall leaves shows.
        arr = (ctypes.c_uint32 * max(1, len(reqs)))(*reqs)
        st = ctypes.create_string_buffer(b'\xff' * (40 * max(1, len(reqs))))
        self._ok(self.L.nl_client_waitall(self.c, arr if reqs else None, len(reqs), st))
        return [st.raw[40 * i:40 * i + 40] for i in range(len(reqs))]

    def compute(self, ps):
        self._ok(self.L.nl_client_compute(self.c, ps))

    def barrier(self):
        self._ok(self.L.nl_client_barrier(self.c))

    def allreduce_sum(self, vals):
        b = (ctypes.c_double * len(vals))(*vals)
        self._ok(self.L.nl_client_allreduce_sum(self.c, b, len(vals)))
        return list(b)

    def close(self):
        c, self.c = self.c, None
        if self.L.nl_client_close(c) < 0:
            raise nl.NetloomError('close failed')


def tryit(what, f, *a):
    try:
        f(*a)
        print(what, 'accepted')
    except nl.NetloomError as e:
        print(what, 'refused:', e)


C = nl.Client if lang == 'py' else CClient
"""

# What both refuse locally (no seq taken, the session goes on), waitall of
# none, an allreduce over the payload limit or behind a pending tag-ANY
# receive (which would take its message), a send request's waitall status.
CLIENTS = CLIENT_PRE + r"""
r = int(sys.argv[5])
c = C(ep, r, timeout_ms=20000)
if r == 0:
    tryit('send dst 7', c.send, 7, 0, b'12345678')
    tryit('isend dst 2^32-1', c.isend, 0xFFFFFFFF, 0, b'x')
    tryit('recv src 7', c.recv, 7, 0)
    tryit('irecv src -2', c.irecv, -2, 0, 8)  # C sent it: its seq taken, every later op out of order
if lang == 'py':  # what Python lets through that C's types stop
    tryit('irecv cap -1', c.irecv, 0, 0, -1)
    tryit('compute 1.5', c.compute, 1.5)
    tryit('compute -1', c.compute, -1)
    tryit('recv src 2^31', c.recv, 2**31, 0)
    tryit('wait -1', c.wait, -1)
    tryit('recv reserved tag', c.recv, 1 - r, nl.TAG_MAX + 1)
    tryit('isend int', c.isend, 1 - r, 7, 1000)
    tryit('isend str', c.isend, 1 - r, 7, 'text')
    tryit('isend list', c.isend, 1 - r, 7, [1, 2])  # was sent as b'\x01\x02'
    tryit('isend range', c.isend, 1 - r, 7, range(3))
    tryit('isend list 300', c.isend, 1 - r, 7, [300])  # was a ValueError
print('waitall none', c.waitall([]))
tryit('allreduce 200000', c.allreduce_sum, [1.0] * 200000)
if r == 0:
    q = c.irecv(-1, -1, 64)
    tryit('allreduce behind ANY', c.allreduce_sum, [1.0])
    got = c.wait(q)
    print('wildcard got', got if lang == 'c' else got.data)
    # Requests the server would refuse with ERROR 10, ending the
    # connection: refused here, nothing sent, the session goes on.
    tryit('wait again', c.wait, q)
    c.compute(1000)
    s = c.isend(1, 6, b'sixsix')
    tryit('wait on a compute', c.wait, s - 1)
    tryit('waitall twice the same', c.waitall, [s, s])
    tryit('waitall a waited one', c.waitall, [s, q])
    w = c.waitall([s])
    print('waitall send', [x == bytes(40) for x in w] if lang == 'c' else w)
    tryit('wait on a waited send', c.wait, s)
else:
    c.send(0, 5, b'user')
    c.recv(0, 6)
print('allreduce', c.allreduce_sum([float(r + 1)]))
c.barrier()
c.close()
if lang == 'py':
    c.close()  # a second close does nothing
    print('closed twice')
"""

# No session: a job over 32 bits, no server (connect within its timeout).
ALONE = CLIENT_PRE + r"""
tryit('job', lambda: C(ep, 0, job=2**32 + 1))
t0 = time.monotonic()
tryit('no server', lambda: C(ep, 0, timeout_ms=1000))
print('fast' if time.monotonic() - t0 < 1.5 else 'slow: %.2f s' % (time.monotonic() - t0))
if lang == 'py':
    tryit('bad endpoint', C, 'nonsense', 0)
"""

# Rank 1 waits in a barrier for rank 0, not yet connected: the error says
# the server may be waiting for other ranks. The server is then killed
# (-9) once this says 'connected': posts must fail within timeout_ms,
# close() return at once.
KILLED = CLIENT_PRE + r"""
c1 = C(ep, 1, timeout_ms=500)
tryit('barrier', c1.barrier)
tryit('close after it', c1.close)
c = C(ep, 0, timeout_ms=1000)
print('connected', flush=True)
time.sleep(1)
try:
    for i in range(200000):
        c.isend(1, 0, b'x') if lang == 'py' else c.compute(1000)
    print('never failed')
except nl.NetloomError as e:
    print('posts failed:', e)
t0 = time.monotonic()
tryit('close', c.close)
print('close fast' if time.monotonic() - t0 < 0.5 else 'close slow: %.2f s' % (time.monotonic() - t0))
"""

# A server whose ERROR texts are the protocol's longest (ZP_ERROR_TEXT_MAX,
# 511 bytes): rank 0 is welcomed and its barrier refused, rank 1 refused at
# HELLO. Both clients give the whole text (C cut it at 200 bytes, and its
# lines at 255).
LONGERR = CLIENT_PRE + r"""
import threading, zmq
TEXT = ('the whole text, ' * 40)[:505] + ' (end)'
ctx = zmq.Context()
srv = ctx.socket(zmq.ROUTER)
srv.setsockopt(zmq.LINGER, 0)
srv.bind(ep)
def hdr(t, rank, tag=0, aux=0, a=0, b=0):
    return nl.HDR.pack(nl.MAGIC, 1, t, 0, 0, rank, 0, 0, tag, aux, 0, a, b, 0)
def serve():
    while srv.poll(10000):
        f = srv.recv_multipart()
        h = nl.HDR.unpack(f[1])
        if h[2] == nl.HELLO and h[5] == 0:
            srv.send_multipart([f[0], hdr(nl.WELCOME, 0, aux=2, a=1 << 20, b=500)])
        elif h[2] != nl.HEARTBEAT:
            srv.send_multipart([f[0], hdr(nl.ERROR, h[5], tag=1), TEXT.encode()])
threading.Thread(target=serve, daemon=True).start()
assert len(TEXT) == 511
c = C(ep, 0, timeout_ms=5000)
tryit('barrier', c.barrier)
tryit('hello', lambda: C(ep, 1, timeout_ms=5000))
"""

# A server whose answers no netloom serve gives, one per rank: rank 0 a
# WELCOME of 0 ranks, rank 1 a WELCOME for rank 7, rank 2 a job range past
# the session's ranks; ranks 3 and 4 a right WELCOME, then for the barrier
# a DONE for an op never sent, a message of 3 frames. Both clients refuse
# each at once, one line: the C client took 0 ranks for no WELCOME yet
# (and Python raised ZeroDivisionError in the ring), both ran as rank 7,
# a DONE for seq 2^32 - 1 wrapped the C client's count to 0 (every wait
# timed out) and a third frame blocked it for ever in zmq_msg_recv. Rank
# 5's refusal has a newline, a terminal escape and a byte of no UTF-8
# sequence in its text: escaped in both, as C did (Python printed them).
BADSRV = CLIENT_PRE + r"""
import threading, zmq
ctx = zmq.Context()
srv = ctx.socket(zmq.ROUTER)
srv.setsockopt(zmq.LINGER, 0)
srv.bind(ep)
def hdr(t, rank, seq=0, peer=0, tag=0, aux=0, a=0, b=0, flags=0):
    return nl.HDR.pack(nl.MAGIC, 1, t, flags, 0, rank, seq, peer, tag, aux, 0, a, b, 0)
def welcome(rank, **kw):
    return hdr(nl.WELCOME, rank, a=1 << 20, b=500, **kw)
ANSWER = {0: [welcome(0, aux=0)], 1: [welcome(7, aux=8)], 2: [welcome(2, aux=3, flags=nl.JOBINFO, peer=2, tag=5)],
          5: [hdr(nl.ERROR, 5, tag=3), b'bad\ntext\x1b[31m\xff end']}
BARRIER = {3: [hdr(nl.DONE, 3, seq=0xFFFFFFFF, a=1)], 4: [hdr(nl.DONE, 4, seq=0, a=1), b'x', b'y']}
def serve():
    while srv.poll(20000):
        f = srv.recv_multipart()
        h = nl.HDR.unpack(f[1])
        if h[2] == nl.HELLO:
            srv.send_multipart([f[0]] + ANSWER.get(h[5], [welcome(h[5], aux=5)]))
        elif h[2] == nl.BARRIER:
            srv.send_multipart([f[0]] + BARRIER[h[5]])
threading.Thread(target=serve, daemon=True).start()
for r in (0, 1, 2, 5):
    tryit('hello %d' % r, lambda: C(ep, r, timeout_ms=5000))
for r in (3, 4):
    c = C(ep, r, timeout_ms=5000)
    tryit('barrier %d' % r, c.barrier)
"""
BADSRV_WANT = [
    "hello 0 refused: bad answer to HELLO: WELCOME: field 'aux' (ranks) is 0, expected 1 or more",
    'hello 1 refused: bad answer to HELLO: WELCOME for rank 7, expected 1',
    'hello 2 refused: bad answer to HELLO: WELCOME: job ranks 2+5, expected a range within 0..3',
    'hello 5 refused: server refused HELLO: unknown rank: bad\\ntext\\x1b[31m\\xff end',
    'barrier 3 refused: bad frame from the server: DONE for seq 4294967295, expected an op sent (seq below 1)',
    'barrier 4 refused: bad frame from the server: message of 3 frames, expected a header frame and at most one '
    'payload frame']


def bad_server_answers(d):
    """Both clients refuse a server's impossible answers at once, one line."""
    script = os.path.join(d, 'badsrv.py')
    open(script, 'w').write(BADSRV)
    for lang in ('py', 'c'):
        r = subprocess.run([PY, script, PYDIR, LIBCLIENT, lang, 'ipc://%s/badsrv-%s' % (d, lang)],
                           capture_output=True, text=True, timeout=TMO)
        expect(r.returncode == 0 and r.stdout.splitlines() == BADSRV_WANT, '%s bad server answers: %d %s %s'
               % (lang, r.returncode, r.stdout, r.stderr))


PENDING = ("is not pending (waited for already, or not an isend or irecv), expected an isend or irecv not waited "
           "for yet")
# One rank, --max-payload 0 or 1 (argv[5]): the limit lines of both clients
# in the singular where the count is 1 (they said '1 bytes', '1 values').
TINYPAY = CLIENT_PRE + r"""
c = C(ep, 0, timeout_ms=10000)
tryit('isend 1', c.isend, 0, 0, b'x' * (int(sys.argv[5]) + 1))
tryit('allreduce 1', c.allreduce_sum, [1.0])
tryit('allreduce 2', c.allreduce_sum, [1.0, 2.0])
c.close()
"""
TINYPAY_WANT = {
    0: ['isend 1 refused: payload of 1 byte, the server takes at most 0',
        'allreduce 1 refused: allreduce_sum: 1 value (8 bytes), the server takes at most 0 bytes',
        'allreduce 2 refused: allreduce_sum: 2 values (8 bytes each), the server takes at most 0 bytes'],
    1: ['isend 1 refused: payload of 2 bytes, the server takes at most 1',
        'allreduce 1 refused: allreduce_sum: 1 value (8 bytes), the server takes at most 1 byte',
        'allreduce 2 refused: allreduce_sum: 2 values (8 bytes each), the server takes at most 1 byte'],
}


def tiny_payload_lines(d):
    """Both clients' payload-limit lines at limits of 0 and 1 byte."""
    script = os.path.join(d, 'tinypay.py')
    open(script, 'w').write(TINYPAY)
    for lang in ('py', 'c'):
        for limit in (0, 1):
            s = Server(d, 1, '-s', 'backend=analytic', '--max-payload', str(limit), name='tiny%s%d' % (lang, limit))
            r = subprocess.run([PY, script, PYDIR, LIBCLIENT, lang, s.ep, str(limit)], capture_output=True, text=True,
                               timeout=TMO)
            expect(r.returncode == 0 and r.stdout.splitlines() == TINYPAY_WANT[limit],
                   '%s --max-payload %d: exit %d\n%s%s\nexpected\n%s' % (lang, limit, r.returncode, r.stdout, r.stderr,
                                                                       '\n'.join(TINYPAY_WANT[limit])))
            rc = s.wait()
            expect(rc == 0, '%s --max-payload %d: server exited %d: %s' % (lang, limit, rc, open(s.err).read()))


CLIENTS_WANT = [  # (rank or None for both, C too, line)
    (0, True, "send dst 7 refused: dst 7, expected 0..1"),
    (0, True, "isend dst 2^32-1 refused: dst 4294967295, expected 0..1"),
    (0, True, "recv src 7 refused: src 7, expected 0..1 or ANY"),
    (0, True, "irecv src -2 refused: src -2, expected 0..1 or ANY"),
    (None, False, "irecv cap -1 refused: cap -1, expected 0..18446744073709551615"),
    (None, False, "compute 1.5 refused: compute: duration 1.5, expected an integer number of ps"),
    (None, False, "compute -1 refused: compute: duration -1 ps, expected 0..2^62 = 4611686018427387904 ps"),
    (None, False, "recv src 2^31 refused: src 2147483648, expected 0..1 or ANY"),
    (None, False, "wait -1 refused: wait: request -1 was never started"),
    (None, False, "recv reserved tag refused: tag 1073741824, expected 0..1073741823 or ANY"),
    (None, False, "isend int refused: payload of type int, expected bytes-like (bytes, bytearray, memoryview or "
     "another buffer)"),
    (None, False, "isend str refused: payload of type str, expected bytes-like (bytes, bytearray, memoryview or "
     "another buffer)"),
    (None, False, "isend list refused: payload of type list, expected bytes-like (bytes, bytearray, memoryview or "
     "another buffer)"),
    (None, False, "isend range refused: payload of type range, expected bytes-like (bytes, bytearray, memoryview or "
     "another buffer)"),
    (None, False, "isend list 300 refused: payload of type list, expected bytes-like (bytes, bytearray, memoryview "
     "or another buffer)"),
    (None, True, "waitall none []"),
    (None, True, "allreduce 200000 refused: allreduce_sum: 200000 values (8 bytes each), the server takes at most "
     "1048576 bytes"),
    (0, True, "allreduce behind ANY refused: allreduce_sum: receive 0 (tag ANY) is still pending and would take "
     "the allreduce's message; wait for it first"),
    (0, True, "wildcard got b'user'"),
    (0, True, "wait again refused: wait: request 0 " + PENDING),
    (0, True, "wait on a compute refused: wait: request 2 " + PENDING),
    (0, True, "waitall twice the same refused: waitall: request 3 named twice, expected distinct requests"),
    (0, True, "waitall a waited one refused: waitall: request 0 " + PENDING),
    (0, True, "waitall send [None]"),
    (0, True, "wait on a waited send refused: wait: request 3 " + PENDING),
    (None, True, "allreduce [3.0]"),
    (None, False, "closed twice"),
]


def client_checks(d):
    """CLIENTS, ALONE and KILLED in both clients."""
    for name, text in (('clients', CLIENTS), ('alone', ALONE), ('killed', KILLED)):
        open(os.path.join(d, name + '.py'), 'w').write(text)
    for lang in ('py', 'c'):
        s = Server(d, 2, '-s', 'backend=analytic', '--timeout-ms', '5000', name='cl' + lang)
        res = clients([[PY, os.path.join(d, 'clients.py'), PYDIR, LIBCLIENT, lang, s.ep, str(r)] for r in range(2)],
                      d, 'cl' + lang)
        for r, (rc, out) in enumerate(res):
            want = [l for rk, both, l in CLIENTS_WANT if rk in (None, r) and (both or lang == 'py')]
            if lang == 'c':
                want = [l.replace('(tag ANY)', '(tag NL_CLIENT_ANY)').replace('or ANY', 'or NL_CLIENT_ANY')
                        .replace('send [None]', 'send [True]') for l in want]
            expect(rc == 0 and out.splitlines() == want, '%s rank %d: exit %d\n%s\nexpected\n%s'
                   % (lang, r, rc, out, '\n'.join(want)))
        rc = s.wait()
        ranks = json.load(open(s.json))['live']['ranks']
        expect(rc == 0 and all(x['state'] == 'finished' for x in ranks),
               '%s: server %d: %s %s' % (lang, rc, open(s.err).read(), ranks))
        r = subprocess.run([PY, os.path.join(d, 'alone.py'), PYDIR, LIBCLIENT, lang, 'ipc://%s/nobody.sock' % d],
                           capture_output=True, text=True, timeout=TMO)
        lines = r.stdout.splitlines()
        expect(r.returncode == 0 and len(lines) == (4 if lang == 'py' else 3)
               and lines[0] == 'job refused: job 4294967297, expected 0..4294967295'
               and lines[1].startswith('no server refused: no WELCOME from') and lines[2] == 'fast'
               and (lang == 'c' or lines[3].startswith("bad endpoint refused: connect 'nonsense': ")),
               '%s alone: %d %s %s' % (lang, r.returncode, r.stdout, r.stderr))
        s = Server(d, 2, '-s', 'backend=analytic', name='kill' + lang)
        p = popen([PY, os.path.join(d, 'killed.py'), PYDIR, LIBCLIENT, lang, s.ep],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first = [p.stdout.readline().rstrip('\n') for _ in range(2)]
        line = p.stdout.readline()
        expect(line.strip() == 'connected', '%s killed: %s %s' % (lang, first, line))
        s.p.kill()
        s.p.wait()
        try:
            out = p.communicate(timeout=30)[0]
        except subprocess.TimeoutExpired:
            p.kill()
            fail('%s: posts to a server killed (-9) hung' % lang)
        expect(p.returncode == 0 and 'posts failed: server not reading for 1000 ms' in out and 'close fast' in out,
               '%s killed: %d %s' % (lang, p.returncode, out))
        expect(first == ['barrier refused: no answer from the server for 500 ms (op seq 0): it may be waiting for '
                         'other ranks; raise timeout_ms', 'close after it refused: ' +
                         ('close: no BYE, the connection was unusable: no answer from the server for 500 ms (op seq '
                          '0): it may be waiting for other ranks; raise timeout_ms' if lang == 'py' else
                          'close failed')], '%s timeout: %s' % (lang, first))


def case_python_max_payload(d):
    """The Python client refuses a payload over WELCOME's max_payload as
    the C client does, before sending: libzmq would otherwise drop the
    connection (ZMQ_MAXMSGSIZE) and the next frame would be refused as one
    from a connection that did not HELLO. The session goes on."""
    need_pyzmq()
    script = os.path.join(d, 'bigpay.py')
    open(script, 'w').write(BIGPAY)
    s = Server(d, 2, '-s', 'backend=analytic', '--timeout-ms', '3000', '--connect-timeout-ms', '10000')
    res = clients([[PY, script, PYDIR, s.ep, str(r)] for r in range(2)], d, 'big')
    want = 'refused: payload of 2000000 bytes, the server takes at most 1048576'
    expect(res[0][0] == 0 and res[0][1].splitlines() == [want, want], 'sender: %d %s' % res[0])
    expect(res[1][0] == 0 and res[1][1].strip() == 'got 1048576 small', 'receiver: %d %s' % res[1])
    rc = s.wait()
    err = open(s.err).read()
    expect(rc == 0 and 'did not HELLO' not in err, 'server exited %d: %s' % (rc, err))
    ranks = json.load(open(s.json))['live']['ranks']
    expect(all(x['state'] == 'finished' and x['refused_frames'] == 0 for x in ranks), 'ranks: %s' % ranks)
    # The socket's hard cap covers a WAITALL's 16 KiB whatever --max-payload
    # is (it followed --max-payload only, and libzmq silently dropped the
    # connection of a legal WAITALL of more than 1024 requests).
    script = os.path.join(d, 'waitallpay.py')
    open(script, 'w').write(WAITALLPAY)
    s = Server(d, 2, '-s', 'backend=analytic', '--max-payload', '0', '--timeout-ms', '3000', name='wa')
    res = clients([[PY, script, PYDIR, s.ep, str(r)] for r in range(2)], d, 'wa')
    expect(all(rc == 0 and out.strip() == 'ok' for rc, out in res), 'waitall clients: %s' % res)
    rc = s.wait()
    err = open(s.err).read()
    expect(rc == 0 and 'did not HELLO' not in err, 'waitall: server exited %d: %s' % (rc, err))
    client_checks(d)
    long_error_text(d)
    bad_server_answers(d)
    tiny_payload_lines(d)


# A raw client (argv: PYDIR, endpoint, the cap in bytes): a SEND whose
# payload frame is the socket's hard cap reaches the server (ERROR 6,
# over --max-payload); one byte more is dropped by libzmq with the
# connection, unsaid, and the client's next frame, from the connection
# its DEALER made again, is one from a connection that did not HELLO.
FRAMECAP = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
ep, cap = sys.argv[2], int(sys.argv[3])
c = nl.Client(ep, 0, timeout_ms=20000)
def send(typ, seq, payload=None):
    h = nl.HDR.pack(nl.MAGIC, nl.VERSION, typ, 0, 0, 0, seq, 0, 0, 0, 0, 0, 0, 0)
    c._sock.send_multipart([h] if payload is None else [h, payload])
def answer(ms):
    if not c._sock.poll(ms):
        return 'nothing within %d ms' % ms
    h, text = c._recv_frames()
    return 'type %d code %d: %s' % (h[2], h[8], text.decode())
send(nl.SEND, 0, bytes(cap))
print('cap:', answer(3000))
send(nl.SEND, 0, bytes(cap + 1))
print('cap + 1:', answer(500))
send(nl.BARRIER, 0)
print('next:', answer(3000))
"""


def case_frame_cap(d):
    """A frame over the socket's hard cap (ZMQ_MAXMSGSIZE: --max-payload
    + 25% + 4 KiB, at least 20 KiB) is dropped by libzmq with its
    connection; the server sees only a disconnection, as for any
    connection lost, so it can say nothing of it (docs/zmq-protocol.md
    "Limits" says what a client sees). The cap's value as documented, and
    a frame of exactly the cap reaches the server."""
    need_pyzmq()
    script = os.path.join(d, 'framecap.py')
    open(script, 'w').write(FRAMECAP)
    for maxpay, cap in ((None, 1048576 + 262144 + 4096), ('0', 16384 + 4096)):
        extra = ('--max-payload', maxpay) if maxpay else ()
        s = Server(d, 1, '-s', 'backend=analytic', '--timeout-ms', '4000', *extra, name='cap%s' % maxpay)
        (rc, out), = clients([[PY, script, PYDIR, s.ep, str(cap)]], d, 'cap%s' % maxpay)
        limit = maxpay or '1048576'
        want = ['cap: type 19 code 6: rank 0: SEND: payload of %d bytes, expected at most %s' % (cap, limit),
                'cap + 1: nothing within 500 ms',
                'next: type 19 code 7: connection claiming rank 0: BARRIER for rank 0 from a connection that did '
                'not HELLO as it']
        expect(rc == 0 and out.splitlines() == want, '--max-payload %s: client %d\n%s\nexpected\n%s'
               % (limit, rc, out, '\n'.join(want)))
        rc = s.wait()
        log = open(s.err).read().splitlines()
        expect(log[1:] == ['netloom serve: rank 0: SEND: payload of %d bytes, expected at most %s' % (cap, limit),
                           'netloom serve: connection claiming rank 0: BARRIER for rank 0 from a connection that '
                           'did not HELLO as it',
                           'netloom serve: rank 0 evicted: no valid frame for more than 4000 ms, 1 refused '
                           '(heartbeat timeout; last: SEND: payload of %d bytes, expected at most %s)' % (cap, limit),
                           'netloom serve: no rank finished: rank 0 was evicted (no --record archive written)'] and rc == 1,
               '--max-payload %s: server exited %d:\n%s' % (limit, rc, '\n'.join(log)))


def long_error_text(d):
    """Both clients give an ERROR's whole text, the protocol's longest."""
    script = os.path.join(d, 'longerr.py')
    open(script, 'w').write(LONGERR)
    text = ('the whole text, ' * 40)[:505] + ' (end)'
    want = ['barrier refused: server: malformed frame: ' + text,
            'hello refused: server refused HELLO: malformed frame: ' + text]
    for lang in ('py', 'c'):
        r = subprocess.run([PY, script, PYDIR, LIBCLIENT, lang, 'ipc://%s/longerr-%s' % (d, lang)],
                           capture_output=True, text=True, timeout=TMO)
        expect(r.returncode == 0 and r.stdout.splitlines() == want, '%s long error text: %d %s %s'
               % (lang, r.returncode, r.stdout, r.stderr))


def case_lockstep_identical(d):
    runs = []
    for i in range(3):
        s, res = run_ring(d, 6, iters=5, extra=('-s', 'backend=analytic'), name='run%d' % i)
        doc = json.load(open(s.json))
        runs.append((open(s.msgs).read(), [o for _, o in res], json.dumps(doc['results'], sort_keys=True),
                     open(s.rec, 'rb').read()))
    for i in (1, 2):
        expect(runs[i][0] == runs[0][0], 'run %d: message log differs' % i)
        expect(runs[i][1] == runs[0][1], 'run %d: client outputs differ' % i)
        expect(runs[i][2] == runs[0][2], 'run %d: results differ' % i)
        expect(runs[i][3] == runs[0][3], 'run %d: recorded archive differs' % i)


FAULTY = r'''
import os, socket, struct, sys, time
sys.path.insert(0, sys.argv[1])
import zmq
import netloom_client as nl
ep, role, token = sys.argv[2], sys.argv[3], int(sys.argv[4])
ctx = zmq.Context()
def raw():
    s = ctx.socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 0); s.connect(ep); return s
def hdr(t, rank, seq=0, peer=0, tag=0, aux=0, a=0):
    return nl.HDR.pack(nl.MAGIC, 1, t, 0, 0, rank, seq, peer, tag, aux, 0, a, 0, 0)
if role == 'garbage':
    c = nl.Client(ep, 4, job=2, token=token)
    for i in range(200):  # bad magic, but claims rank 4; never a valid frame again
        c._sock.send(b'\xde\xad' + bytes(6) + struct.pack('<I', 4) + os.urandom(44))
        time.sleep(0.05)
elif role == 'oversized':
    c = nl.Client(ep, 5, job=2, token=token)
    c._sock.send_multipart([hdr(nl.SEND, 5, 0, 0, 1), bytes(9000)])
    c._sock.send_multipart([hdr(nl.SEND, 5, 0, 0, 1), b'x'])  # to rank 0, in the other job
    for i in range(2):
        while True:
            h, pay = c._recv_frames()
            if h[2] == nl.ERROR:
                print('refused:', pay.decode()); break
    c.close()  # the session goes on for this rank: seq 0 is still free
elif role == 'impersonate':
    s = raw()
    s.send(hdr(nl.HELLO, 0, a=token + 1))           # rank 0 with a wrong token
    print('hello as 0:', s.recv_multipart()[1].decode())
    s.send(hdr(nl.COMPUTE, 1, 0, a=5))                # an op for rank 1 it never said HELLO for
    print('op as 1:', s.recv_multipart()[1].decode())
    s.send(hdr(nl.HELLO, 5, aux=1, a=token))         # rank 5 of job 2, claiming job 1
    print('hello as 5:', s.recv_multipart()[1].decode())
elif role in ('kill', 'stop'):
    c = nl.Client(ep, 6 if role == 'kill' else 7, job=2, token=token)
    c.compute(1000)
    print('ready', flush=True)
    while True:  # heartbeats until the test signals this process
        c._send(nl.HEARTBEAT); time.sleep(0.1)
'''


def rank_rows(text):
    """The report table's rows, by rank: each row's words (rank, compute_s,
    comm_s, wait_s, finish_s or until_s, messages, then the trailing note)."""
    return {int(w[0]): w for w in (l.split() for l in text.splitlines()) if w and w[0].isdigit()}


def case_faults(d):
    # Two jobs of 4 (the issue's form): job 1, ranks 0-3, a ring with a
    # barrier per step that must finish with every message once and in
    # order; job 2, ranks 4-7, offenders, plus a ninth process that holds
    # no rank and tries to impersonate ranks of both jobs.
    n = 8
    tokens = [1000 + 7 * r for r in range(n)]
    tok = os.path.join(d, 'tokens')
    open(tok, 'w').write(''.join('%d\n' % t for t in tokens))
    need_pyzmq()
    fscript = os.path.join(d, 'faulty.py')
    open(fscript, 'w').write(FAULTY)
    s = Server(d, n, '-s', 'backend=analytic', '--tokens', tok, '--max-payload', '4096', '--heartbeat-ms', '100',
               '--timeout-ms', '1500', '--connect-timeout-ms', '8000', '--jobs', '4,4')
    # The good job: ranks 0-3 in a ring; its clients use a pure-C program
    # that takes no token, so they connect through Python with theirs.
    good_py = os.path.join(d, 'good.py')
    open(good_py, 'w').write(
        'import sys, struct\nsys.path.insert(0, sys.argv[1])\nimport netloom_client as nl\n'
        'ep, r, tok = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])\n'
        'c = nl.Client(ep, r, job=1, token=tok, timeout_ms=30000)\n'
        'for it in range(20):\n'
        '    q = c.isend((r + 1) % 4, it, struct.pack("<ii", it, r))\n'
        '    st = c.recv((r + 3) % 4, it)\n'
        '    got = struct.unpack("<ii", st.data)\n'
        '    assert got == (it, (r + 3) % 4), got\n'
        '    print("got", it, st.t_done_ps, flush=True)\n'
        '    c.wait(q)\n'
        '    c.compute(1000000)\n'
        '    c.barrier()\n'
        'c.close()\nprint("ok")\n')
    procs = {}
    for r in range(4):
        procs['good%d' % r] = popen([PY, good_py, PYDIR, s.ep, str(r), str(tokens[r])],
                                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for role, r in (('garbage', 4), ('oversized', 5), ('impersonate', 5), ('kill', 6), ('stop', 7)):
        procs[role] = popen([PY, fscript, PYDIR, s.ep, role, str(tokens[r])],
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for role in ('kill', 'stop'):
        line = procs[role].stdout.readline()
        expect(line.strip() == 'ready', '%s client did not start: %s' % (role, line))
    procs['kill'].send_signal(signal.SIGKILL)
    procs['stop'].send_signal(signal.SIGSTOP)
    outs = {}
    for name in ['good0', 'good1', 'good2', 'good3', 'oversized', 'impersonate']:
        try:
            outs[name] = procs[name].communicate(timeout=TMO)[0]
        except subprocess.TimeoutExpired:
            for p in procs.values():
                p.kill()
            fail('%s hung' % name)
        expect(procs[name].returncode == 0, '%s exited %d: %s' % (name, procs[name].returncode, outs[name]))
    rc = s.wait()
    procs['stop'].send_signal(signal.SIGCONT)
    for name in ('garbage', 'kill', 'stop'):
        procs[name].kill()
        procs[name].wait()
    expect(rc == 0, 'server exited %d: %s' % (rc, open(s.err).read()))
    for r in range(4):
        got = [int(l.split()[1]) for l in outs['good%d' % r].splitlines() if l.startswith('got')]
        expect(got == list(range(20)), 'rank %d got %s' % (r, got))
    expect('payload of 9000 bytes' in outs['oversized'] and 'peer 0 is in job 1' in outs['oversized'],
           'oversized: %s' % outs['oversized'])
    expect('wrong token' in outs['impersonate'] and 'did not HELLO' in outs['impersonate'] and
           'job 1 for rank 5, expected 2' in outs['impersonate'], 'impersonate: %s' % outs['impersonate'])
    rep = json.load(open(s.json))
    ranks = rep['live']['ranks']
    for r in range(4):
        expect(ranks[r]['state'] == 'finished', 'rank %d: %s' % (r, ranks[r]))
    expect(ranks[4]['state'] == 'evicted' and ranks[4]['refused_frames'] > 0 and
           'magic' in ranks[4]['what_happened'], 'garbage: %s' % ranks[4])
    expect(ranks[5]['state'] == 'finished' and ranks[5]['refused_frames'] == 3 and
           'peer 0 is in job 1' in ranks[5]['what_happened'], 'big: %s' % ranks[5])
    expect('wrong token' in ranks[0]['what_happened'], 'impersonated rank 0: %s' % ranks[0])
    expect(ranks[6]['state'] == 'evicted' and 'heartbeat' in ranks[6]['what_happened'], 'kill: %s' % ranks[6])
    expect(ranks[7]['state'] == 'evicted' and 'heartbeat' in ranks[7]['what_happened'], 'stop: %s' % ranks[7])
    # Every message of job 1 delivered exactly once (the clients checked order and content).
    job1 = [l.split() for l in open(s.msgs)]
    expect(sorted((int(f[0]), int(f[2])) for f in job1) == sorted((r, it) for r in range(4) for it in range(20)),
           'job 1 message log: %s' % job1)
    jobs = rep['live']['jobs']
    expect([(j['job'], j['first_rank'], j['ranks']) for j in jobs] == [(1, 0, 4), (2, 4, 4)], 'jobs: %s' % jobs)
    # Job 1's refused frames are the impersonator's HELLO as rank 0 and its op
    # as rank 1, counted for the victims (rank 5's two own and its HELLO
    # claiming job 1 are job 2's); each frame once: the totals add up.
    expect(jobs[0]['finished'] == 4 and jobs[0]['delivered'] == 80 and jobs[0]['refused_frames'] == 2,
           'job 1: %s' % jobs[0])
    expect(jobs[1]['evicted'] == 3 and jobs[1]['finished'] == 1 and jobs[1]['delivered'] == 0, 'job 2: %s' % jobs[1])
    expect(rep['live']['refused_frames'] == sum(j['refused_frames'] for j in jobs) +
           rep['live']['refused_frames_without_rank'] == sum(r['refused_frames'] for r in ranks) +
           rep['live']['refused_frames_without_rank'], 'refused frames do not add up: %s' % rep['live'])
    text = open(s.out).read()
    print(text + open(s.err).read())
    for r in (4, 6, 7):
        expect('rank %d: evicted' % r in text, 'report lacks rank %d: %s' % (r, text))
    # The evicted ranks did not finish: no finish_s (it was where each
    # stream ended); the others' are finishes, the last one the runtime.
    fins = [x['finish_s'] for x in rep['results']['ranks']]
    expect([f is None for f in fins] == [r in (4, 6, 7) for r in range(n)] and
           max(f for f in fins if f is not None) == rep['results']['runtime']['predicted_s'],
           'JSON finish_s: %s, runtime %s' % (fins, rep['results']['runtime']))
    # The text's finish_s as the JSON's: `-` for an evicted rank (it gave
    # where the rank's stream ended, beside `evicted`).
    rows = rank_rows(text)
    expect([(rows[r][4] == '-') == (fins[r] is None) and rows[r][6:] == (['evicted'] if fins[r] is None else [])
            for r in range(n)] == [True] * n and rows[0][4] == '%.9f' % fins[0],
           'text rows: %s, JSON finish_s %s' % (rows, fins))
    expect('job 1 (ranks 0-3): 4 finished, 0 evicted' in text, 'report lacks job 1: %s' % text)
    # The recording keeps each job's communicator: it replays to the same times.
    replay_matches(s, d, ('backend=analytic',))


# A late HELLO and a wrong-token HELLO for a rank evicted for never
# connecting: the first was told the rank "is taken by another connection",
# the second replaced the rank's reason in the report.
LATE = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import zmq
import netloom_client as nl
ctx = zmq.Context()
def sock():
    s = ctx.socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 1000); s.connect(sys.argv[2]); return s
def hdr(t, rank, seq=0, a=0):
    return nl.HDR.pack(nl.MAGIC, 1, t, 0, 0, rank, seq, 0, 0, 1 if t == nl.HELLO else 0, 0, a, 0, 0)
def reply(s):
    if not s.poll(10000):
        print('timeout'); sys.exit(1)
    p = s.recv_multipart()
    return nl.HDR.unpack(p[0]), (p[1].decode() if len(p) > 1 else '')
b = sock()
b.send(hdr(nl.HELLO, 1, a=22)); reply(b)
# Rank 1 is told when rank 0 is evicted for never connecting: the late
# HELLOs follow that notice, not a guess at how long the window takes.
t0 = time.time()
while True:
    b.send(hdr(nl.HEARTBEAT, 1))
    if b.poll(200):
        h = nl.HDR.unpack(b.recv_multipart()[0])
        if h[2] == nl.ERROR and h[8] == nl.EEVICTED and h[5] == 0:
            break
    if time.time() - t0 > 20:
        print('no eviction notice for rank 0'); sys.exit(1)
for token in (11, 99):
    x = sock()
    x.send(hdr(nl.HELLO, 0, a=token))
    h, text = reply(x)
    print('hello token %d: %d %s' % (token, h[8], text))
b.send(hdr(nl.BYE, 1, 0))
while reply(b)[0][2] != nl.DONE:
    pass
"""


def case_errors(d):
    def serve(*args):
        return subprocess.run([NETLOOM, 'serve'] + list(args), capture_output=True, text=True, timeout=TMO)
    r = serve('--ranks', '2', '--listen', 'tcp://0.0.0.0:5999')
    expect(r.returncode == 2 and "--listen: 'tcp://0.0.0.0:5999'" in r.stderr and '--allow-remote' in r.stderr,
           'remote address: %d %s' % (r.returncode, r.stderr))
    expect(r.stderr.count('\n') == 1, 'not one line: %s' % r.stderr)
    r = serve('--listen', 'ipc://%s/x' % d)
    expect(r.returncode == 2 and '--ranks' in r.stderr, 'no ranks: %s' % r.stderr)
    # -c is optional (docs/live.md): the usage showed it as required.
    r = serve('--help')
    expect(r.returncode == 0 and r.stdout.startswith('usage: netloom serve [-c SYSTEM.ini] --ranks N [options]\n'),
           'usage: %d %r' % (r.returncode, r.stdout[:80]))
    # '-' is standard output for both, as docs/live.md and replay's help say
    # (serve's help did not).
    expect("      --json FILE          write the report as JSON ('-' = stdout, instead of the text report)\n"
           in r.stdout and "                           ('-' = stdout, instead of the text report)\n"
           "      --json" in r.stdout, 'usage: --json and --messages -: %s' % r.stdout)
    r = serve('--ranks', 'x')
    expect(r.returncode == 2 and '--ranks' in r.stderr, 'bad ranks: %s' % r.stderr)
    tok = os.path.join(d, 'tok')
    open(tok, 'w').write('1\n')
    r = serve('--ranks', '2', '--tokens', tok, '--listen', 'ipc://%s/y' % d)
    # A count of one is said in the singular ('1 tokens' before), here and
    # in the two counts below.
    expect(r.returncode == 2 and r.stderr == "netloom serve: --tokens: '%s': 1 token, expected 2 (one per rank)\n"
           % tok, 'tokens: %s' % r.stderr)
    tok2 = os.path.join(d, 'tok2')
    open(tok2, 'w').write('1\n2\n')
    r = serve('--ranks', '1', '--tokens', tok2, '--listen', 'ipc://%s/y2' % d)
    expect(r.returncode == 2 and r.stderr == "netloom serve: --tokens: '%s' line 2: more than 1 token, expected one "
           "per rank\n" % tok2, 'tokens, one too many: %s' % r.stderr)
    r = serve('--ranks', '2', '--jobs', '1', '--listen', 'ipc://%s/j0' % d)
    expect(r.returncode == 2 and r.stderr == "netloom serve: --jobs: '1': sizes sum to 1 rank, expected --ranks 2\n",
           'jobs sum of one: %s' % r.stderr)
    r = serve('--ranks', '8', '--jobs', '4,x', '--listen', 'ipc://%s/j1' % d)
    expect(r.returncode == 2 and "--jobs: '4,x': job 2 size 'x'" in r.stderr and r.stderr.count('\n') == 1,
           'jobs syntax: %s' % r.stderr)
    r = serve('--ranks', '8', '--jobs', '3,3', '-s', 'backend=analytic', '--listen', 'ipc://%s/j2' % d)
    # Said as the list's other faults are ('netloom: --jobs: sizes sum to
    # 6 ranks, ...' before).
    expect(r.returncode == 2 and r.stderr == "netloom serve: --jobs: '3,3': sizes sum to 6 ranks, expected --ranks 8\n",
           'jobs sum: %s' % r.stderr)
    expect(not os.path.exists('%s/j2' % d), 'bad --jobs left a socket')
    # One line each, naming the value and what was expected.
    def refused(args, needle, what):
        r = serve(*args)
        expect(r.returncode == 2 and needle in r.stderr and r.stderr.count('\n') == 1,
               '%s: %d %r' % (what, r.returncode, r.stderr))
    for port in ('99999', '65536', 'x', '', '-1'):
        refused(('--ranks', '2', '--listen', 'tcp://127.0.0.1:' + port),
                "--listen: 'tcp://127.0.0.1:%s': port '%s', expected 1..65535 (or 0 or * for any free port)"
                % (port, port), 'port ' + port)
    refused(('--ranks', '2', '--listen', 'tcp://[::1]:70000'), "port '70000', expected 1..65535", 'v6 port')
    # A loopback address without its port is refused for the port (it was
    # sent to --allow-remote), and an IPv6 host's colons are no port's
    # ('tcp://[::1]' was port '1]').
    for ep, extra in (('tcp://127.0.0.1', ()), ('tcp://localhost', ()), ('tcp://[::1]', ()),
                      ('tcp://[::1]', ('--allow-remote',)), ('tcp://[::]', ('--allow-remote',))):
        refused(('--ranks', '2', '--listen', ep) + extra, "netloom serve: --listen: '%s': port '', expected 1..65535 (or 0 "
                "or * for any free port)" % ep, 'no port %s %s' % (ep, extra))
    # An IPv6 address without its ']' was said as "port ''".
    refused(('--ranks', '2', '--listen', 'tcp://[::1:5999', '--allow-remote'), "netloom serve: --listen: 'tcp://[::1:5999': no ']' "
            "after the IPv6 address, expected tcp://[ADDRESS]:PORT", 'unclosed [')
    refused(('--ranks', '2', '--listen', 'ipc://'), "netloom serve: --listen: 'ipc://': empty ipc path, expected "
            "ipc://PATH (a socket file to create)", 'empty ipc path')  # was libzmq's "Invalid argument"
    # What libzmq's bind refuses is said with what was expected, not its
    # word alone ("No such device" for a host name it does not resolve).
    refused(('--ranks', '2', '--listen', 'tcp://nosuchhost.invalid:5999', '--allow-remote'),
            "netloom serve: --listen: 'tcp://nosuchhost.invalid:5999': No such device; expected a numeric address "
            "or an interface name of this host (a host name is not looked up)", 'host name')
    refused(('--ranks', '2', '--listen', 'ipc://%s/nodir/s' % d),
            "netloom serve: --listen: 'ipc://%s/nodir/s': No such file or directory; expected an existing folder "
            "for the socket file" % d, 'ipc folder missing')
    expect(not os.path.exists('%s/nodir' % d), 'ipc folder made')
    long_ep = 'ipc://%s/%s' % (d, 'a' * 120)
    refused(('--ranks', '2', '--listen', long_ep), "netloom serve: --listen: '%s': File name too long; expected a "
            "socket file path of at most 107 bytes (the system's limit)" % long_ep, 'ipc path too long')
    # A routing function the analytic backend does not run is checked as
    # replay checks it, with a topology or without: a typo served silently.
    for topo in ((), ('-s', 'topology=torus:k=4x4')):
        refused(('--ranks', '2', '-s', 'routing_function=dorr') + topo + ('--listen', 'ipc://%s/rf' % d),
                "netloom serve: -s: key 'routing_function': unknown routing function 'dorr' (valid: dor, ",
                'routing typo %s' % (topo,))
    expect(not os.path.exists('%s/rf' % d), 'a refused routing function left a socket')
    # Not '': write failed, nor a key pair in a file named '-'.
    for name, why in (('', 'empty file name'), ('-', 'not a file name')):
        refused(('--curve-keygen', name), "netloom serve: --curve-keygen '%s': %s; expected a file to write (the key pair "
                "goes to FILE and FILE.pub)" % (name, why), 'keygen %r' % name)
    expect(not os.path.exists('-') and not os.path.exists('-.pub'), "keygen '-' wrote a file")
    # Half of the CURVE pair is the command line's error, named as serve's
    # other option pairs are (it was 'netloom: ...').
    for opt in ('--curve-key', '--curve-allow'):
        refused(('--ranks', '2', opt, 'x'), "netloom serve: %s given alone, expected both --curve-key and "
                "--curve-allow" % opt, opt + ' alone')
    # Its value left out, the next option was taken for FILE: the key pair
    # went to '--quiet' and '--quiet.pub' (exit 0).
    r = subprocess.run([os.path.abspath(NETLOOM), 'serve', '--curve-keygen', '--quiet'], capture_output=True,
                       text=True, timeout=TMO, cwd=d)
    expect(r.returncode == 2 and r.stderr == "netloom serve: --curve-keygen '--quiet': an option, not a file name (a value "
           "left out?); expected a file to write; the key pair goes to FILE and FILE.pub (./--quiet for a file of "
           "that name)\n", 'keygen --quiet: %d %r' % (r.returncode, r.stderr))
    expect(not os.path.exists(os.path.join(d, '--quiet')), "keygen --quiet wrote a file")
    # libzmq's ipc bind deletes whatever is at the path: a file that is
    # not a socket is refused and kept.
    keep = os.path.join(d, 'notes.txt')
    open(keep, 'w').write('mine\n')
    refused(('--ranks', '2', '--listen', 'ipc://' + keep), '%s exists and is not a socket' % keep, 'ipc onto a file')
    expect(open(keep).read() == 'mine\n', 'ipc onto a file: the file was not kept')
    # A report that cannot be written is refused before the session (it
    # failed after the clients had run).
    refused(('--ranks', '2', '--listen', 'ipc://%s/jn' % d, '--json', '%s/no/such/r.json' % d),
            'netloom serve: --json: %s/no/such/r.json: %s/no/such: no such directory; expected an existing folder to '
            'write to' % (d, d),
            'unwritable --json')
    refused(('--ranks', '2', '--max-lag-ms', '5', '--listen', 'ipc://%s/ml' % d),
            '--max-lag-ms 5 needs --pace', 'max-lag-ms without --pace')
    refused(('--ranks', '4', '--jobs', '0,4', '--listen', 'ipc://%s/j0' % d),
            "--jobs: '0,4': job 1 size '0', expected", 'jobs 0,4')
    refused(('--ranks', '4', '--jobs', '2,,2', '--listen', 'ipc://%s/j3' % d),
            "--jobs: '2,,2': job 2 size '', expected", 'jobs 2,,2')
    open(tok, 'w').write('1\r\nx\r\n')
    refused(('--ranks', '2', '--tokens', tok, '--listen', 'ipc://%s/t2' % d),
            "line 2: 'x', expected a decimal token", 'tokens CRLF')
    # A sign is no digit, after a blank too: ' -1' was the token 2^64 - 1
    # and '+5' was 5 (only '-' first on the line was refused).
    for line in (' -1', '\t-7', '+5'):
        open(tok, 'w').write('1\n%s\n' % line)
        refused(('--ranks', '2', '--tokens', tok, '--listen', 'ipc://%s/t3' % d),
                "line 2: '%s', expected a decimal token" % line.replace('\t', '\\t'), 'tokens %r' % line)
    # Blank lines and '#' comments are skipped, as in a placement map file
    # (a file ending in a blank line was refused: "line 3: ''"); a line is
    # counted as a line, not as a token, in a message.
    open(tok, 'w').write('# rank tokens%s\n1\n\n2  # rank 1\n\n' % (', long' * 40))
    r = serve('--ranks', '2', '--tokens', tok, '--listen', 'ipc://%s/t4' % d, '--connect-timeout-ms', '1')
    expect('--tokens' not in r.stderr, 'tokens with blank and comment lines: %r' % r.stderr)
    open(tok, 'w').write('1\n\n2 x\n')
    refused(('--ranks', '2', '--tokens', tok, '--listen', 'ipc://%s/t5' % d),
            "line 3: '2 x', expected a decimal token 0..18446744073709551615", 'tokens line number')
    # A NUL byte ended the line's text: '1\0x' was the token 1.
    open(tok, 'w').write('1\n2\0x\n')
    refused(('--ranks', '2', '--tokens', tok, '--listen', 'ipc://%s/t7' % d),
            "--tokens: '%s' line 2: unexpected NUL byte; expected a text file" % tok, 'tokens NUL')
    # Past 2^64 - 1 the message names the range (it said only "decimal").
    open(tok, 'w').write('1\n18446744073709551616\n')
    refused(('--ranks', '2', '--tokens', tok, '--listen', 'ipc://%s/t6' % d),
            "line 2: '18446744073709551616', expected a decimal token 0..18446744073709551615", 'tokens 2^64')
    # --allow-remote without CURVE: one warning line (not an error), none
    # with -q (it said nothing, though the docs say to use it with CURVE).
    warn = "netloom serve: warning: --allow-remote without --curve-key: any host that reaches "
    for q in ((), ('-q',)):
        r = serve('--ranks', '1', '--allow-remote', '--listen', 'tcp://127.0.0.1:0', '--connect-timeout-ms', '1', *q)
        lines = [l for l in r.stderr.splitlines() if l.startswith(warn)]
        expect(len(lines) == (0 if q else 1) and (q or 'in plain text; expected --curve-key and --curve-allow with '
               'it (docs/live.md, "Encryption")' in lines[0]), 'allow-remote warning %s: %r' % (q, r.stderr))
    # compute_time = cpu replayed every live COMPUTE as 0 s: refused at
    # start, as replay refuses it for a trace without CPU time.
    refused(('--ranks', '2', '-s', 'compute_time=cpu', '--listen', 'ipc://%s/cpu' % d),
            "netloom serve: -s: key 'compute_time': value 'cpu': live ranks declare COMPUTE durations, not CPU time; "
            "expected wall or auto", 'compute_time cpu')
    # A -s of a key the backend does not read: warned of (it was silent).
    r = serve('--ranks', '1', '--listen', 'ipc://%s/warn' % d, '--connect-timeout-ms', '1', '-s', 'num_vcs=4')
    expect(r.stderr.splitlines()[:1] == ["netloom serve: warning: -s num_vcs=4: key 'num_vcs' of [router] is not "
                                         "read by serve (backend analytic); it has no effect"],
           'unread key: %r' % r.stderr)
    # A topology the analytic backend does not see (link_model = none) gave
    # every message the delay it has without one, silently: warned of
    # after the 'listening on' line; not with link_model = links, nor -q.
    for extra, n in ((('-s', 'topology=torus:k=4x4'), 1), (('-s', 'topology=torus:k=4x4', '-s', 'link_model=links'), 0),
                     (('-s', 'topology=torus:k=4x4', '-q'), 0), ((), 0)):
        js = os.path.join(d, 'blind.json')
        r = serve('--ranks', '1', '--listen', 'ipc://%s/blind' % d, '--connect-timeout-ms', '1', '--json', js, *extra)
        lines = [l for l in r.stderr.splitlines() if 'does not see the topology' in l]
        # The report says it too, as replay's (network.topology_unused),
        # with -q as well.
        why = json.load(open(js))['network'].get('topology_unused')
        expect(why == ('link_model = none and hop_latency_ns = 0' if 'link_model=links' not in extra and extra
                       else None), 'topology unused %s: json %r' % (extra, why))
        expect(len(lines) == n and (n == 0 or lines[0] == "netloom serve: warning: backend analytic with link_model = "
               "none and hop_latency_ns = 0 does not see the topology: every message has the delay it has without "
               "one (-s backend=flit models each network flit by flit; -s link_model=links shares the channels of "
               "its routes; docs/live.md)"), 'topology unused %s: %r' % (extra, r.stderr))
    # Read when the session builds its network: named where set (it was not).
    refused(('--ranks', '20', '-s', 'topology=torus:k=4x4', '--listen', 'ipc://%s/small' % d),
            "netloom serve: -s: key 'topology': 'torus:k=4x4' has 16 endpoints, the session needs 20 (one per rank); expected a "
            "topology of 20 endpoints or more",
            'topology too small')
    expect(not os.path.exists('%s/cpu' % d), 'compute_time cpu left a socket')
    # The placement keys place a --trace's ranks only (live rank r is on
    # endpoint r): without --trace they placed nothing and the session ran
    # (exit 0), its report echoing them. Refused, naming -s or the -c file's line.
    sysini = os.path.join(d, 'placed.ini')
    open(sysini, 'w').write('[network]\ntopology = torus:k=4\n[replay]\nplacement = random-node\n')
    for args, key, value, at in ((('-s', 'placement=random-node'), 'placement', 'random-node', '-s: '),
                                 (('-s', 'placement_seed=7'), 'placement_seed', '7', '-s: '),
                                 (('-s', 'ranks_per_node=2'), 'ranks_per_node', '2', '-s: '),
                                 (('-s', 'placement_inner=round_robin'), 'placement_inner', 'round_robin', '-s: '),
                                 (('-s', 'placement_map=any.map'), 'placement_map', 'any.map', '-s: '),
                                 (('-c', sysini), 'placement', 'random-node', sysini + ':4: ')):
        r = serve('--ranks', '2', '--listen', 'ipc://%s/pl' % d, '--connect-timeout-ms', '300', *args)
        expect(r.returncode == 2 and r.stderr == "netloom serve: %skey '%s': value '%s': it places a --trace's ranks "
               "only, and there is no --trace (live rank r is on endpoint r); expected --trace with it, or %s unset\n"
               % (at, key, value, key), 'placement without --trace %s: %d %r' % (args, r.returncode, r.stderr))
    expect(not os.path.exists('%s/pl' % d), 'placement without --trace left a socket')
    # So are the collective algorithms but the barrier's (a live rank's
    # only collective) and cpu_flops: they shape a trace's ops only.
    coll = "it shapes a --trace's collectives only, and there is no --trace (a live rank's only collective is the " \
           "barrier; the clients' allreduce_sum is point-to-point)"
    for key, value, why in (('coll_allreduce_algorithm', 'ring', coll), ('coll_knomial_radix', '8', coll),
                            ('cpu_flops', '2e9', "it times a --trace's flop counts only, and there is no --trace "
                             "(live ranks declare COMPUTE durations)")):
        r = serve('--ranks', '2', '--listen', 'ipc://%s/pl' % d, '--connect-timeout-ms', '300', '-s',
                  '%s=%s' % (key, value))
        expect(r.returncode == 2 and r.stderr == "netloom serve: -s: key '%s': value '%s': %s; expected --trace with it, "
               "or %s unset\n" % (key, value, why, key), '%s without --trace: %d %r' % (key, r.returncode, r.stderr))
    # Every output is checked before the session (--record was checked
    # only when written, after the clients ran), and two naming one file
    # are refused (one replaced the other, exit 0).
    os.mkdir(os.path.join(d, 'same.dir'))
    refused(('--ranks', '2', '--listen', 'ipc://%s/rd' % d, '--record', '%s/same.dir' % d),
            "netloom serve: --record: %s/same.dir: is a directory; expected a file name to write" % d, 'record dir')
    refused(('--ranks', '2', '--listen', 'ipc://%s/md' % d, '--messages', '%s/no/m' % d),
            "netloom serve: --messages: %s/no/m: %s/no: no such directory; expected an existing folder to write to" % (d, d),
            'messages unwritable')
    for a, b in (('--json', '--messages'), ('--messages', '--record'), ('--json', '--record')):
        refused(('--ranks', '2', '--listen', 'ipc://%s/sf' % d, a, '%s/same.x' % d, b, '%s/./same.x' % d),
                "netloom serve: %s '%s/./same.x': the same file as %s; expected another file" % (b, d, a),
                'same file %s %s' % (a, b))
    expect(not os.path.exists('%s/sf' % d) and not os.path.exists('%s/same.x' % d), 'same file: outputs left')
    # '-' is standard output (it made a file named '-' for --messages and
    # --record); an archive is a file: --record '-' or a FIFO is refused.
    refused(('--ranks', '2', '--listen', 'ipc://%s/rs' % d, '--record', '-'),
            "netloom serve: --record '-': an archive is written to a file, not to standard output; expected a file "
            "name (FILE.nlt)", 'record -')
    # An empty name was offered '-' ("expected a file to write, or '-' for
    # standard output"), which the line above refuses.
    refused(('--ranks', '2', '--listen', 'ipc://%s/re' % d, '--record', ''),
            "netloom serve: --record '': empty file name; expected a file name (FILE.nlt)", 'record empty')
    os.mkfifo(os.path.join(d, 'rec.fifo'))
    refused(('--ranks', '2', '--listen', 'ipc://%s/rf' % d, '--record', '%s/rec.fifo' % d),
            "netloom serve: --record '%s/rec.fifo': a device or FIFO; expected a file name for the archive" % d,
            'record FIFO')
    refused(('--ranks', '2', '--listen', 'ipc://%s/ss' % d, '--json', '-', '--messages', '-'),
            "netloom serve: --messages '-': the same file as --json; expected another file", 'two on stdout')
    for opt in ('--messages', '--json'):  # on standard output, instead of the text report
        w = os.path.join(d, 'dash' + opt)
        os.mkdir(w)
        ep = 'ipc://%s/a.sock' % w
        p = popen([os.path.abspath(NETLOOM), 'serve', '--ranks', '2', '--listen', ep, '-s',
                              'backend=analytic', opt, '-'], cwd=w, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        t0 = time.time()
        while not os.path.exists(ep[6:]) and time.time() - t0 < 10:
            time.sleep(0.02)
        res = clients([[RING, ep, str(r), '2', '16'] for r in range(2)], w, 'c')
        out, err = p.communicate(timeout=TMO)
        expect(p.returncode == 0 and all(rc == 0 for rc, _ in res), '%s -: %d %s' % (opt, p.returncode, err))
        if opt == '--messages':
            ok = len(out.splitlines()) == 6 and all(len(l.split()) == 9 for l in out.splitlines())
        else:
            ok = json.loads(out)['live']['delivered'] == 6
        expect(ok and not os.path.exists(os.path.join(w, '-')), "%s -: stdout %r, files %s"
               % (opt, out[:300], os.listdir(w)))
    r = serve('--ranks', '2', '-s', 'backend=nope', '--listen', 'ipc://%s/z' % d)
    expect(r.returncode == 2 and 'backend' in r.stderr, 'backend: %s' % r.stderr)
    # --messages is staged and moved into place at the end: during the
    # session the file at its path is the old one (it was truncated at
    # the start and written in place).
    open(os.path.join(d, 'atom.msgs'), 'w').write('old\n')
    s = Server(d, 2, '-s', 'backend=analytic', name='atom')
    expect(open(s.msgs).read() == 'old\n', '--messages was replaced before the session ended')
    res = clients([[RING, s.ep, str(r), '2', '16'] for r in range(2)], d, 'atom')
    expect(s.wait() == 0 and all(rc == 0 for rc, _ in res), 'atom: %s' % open(s.err).read())
    log = open(s.msgs).read().splitlines()
    expect(len(log) == 6 and 'old' not in log, '--messages after the session: %s' % log)
    outputs_lost(d)
    need_pyzmq()
    paced_bound(d)
    script = os.path.join(d, 'late.py')
    open(script, 'w').write(LATE)
    open(tok, 'w').write('11\n22\n')
    # Rank 1's client starts first and has the whole 3 s window to say
    # HELLO (a 600 ms one, after the server, missed it once at load 9);
    # the late HELLOs wait for rank 0's eviction notice, not a fixed time.
    procs = clients_start([[PY, script, PYDIR, 'ipc://%s/late.sock' % d]], d, 'late')
    s = Server(d, 2, '-s', 'backend=analytic', '--tokens', tok, '--connect-timeout-ms', '3000', '--heartbeat-ms',
               '200', '--timeout-ms', '3000', name='late')
    (rc, out), = clients_wait(procs)
    srv = s.wait()
    expect(rc == 0 and out.splitlines() == [
        'hello token 11: 10 connection claiming rank 0: HELLO: rank 0 was evicted (never connected within 3000 ms); '
        'a rank joins a session once, expected a new session (netloom serve) to run it again',
        'hello token 99: 5 connection claiming rank 0: HELLO: wrong token for rank 0, expected the rank\'s token '
        '(--tokens; impersonation refused)'],
        'late HELLO: %d %s' % (rc, out))
    ranks = json.load(open(s.json))['live']['ranks']
    expect(srv == 0 and ranks[0]['what_happened'] == 'never connected within 3000 ms',
           'late HELLO: server %d, rank 0: %s' % (srv, ranks[0]))
    # A rank that never connects is evicted and the others are told; the
    # session ends in a deadlock report, not a hang. (2000 ms: the client
    # that connects must beat the eviction on a loaded host.)
    s = Server(d, 2, '-s', 'backend=analytic', '--connect-timeout-ms', '2000', '--heartbeat-ms', '100',
               '--timeout-ms', '1000', name='absent')
    res = clients([[RING, s.ep, '0', '2', '16']], d, 'absent')
    expect(res[0][0] == 1, 'client of a deadlocked session exited %d' % res[0][0])
    rc = s.wait()
    expect(rc == 1, 'server exited %d' % rc)
    out = open(s.out).read()
    expect('rank 1: evicted' in out and 'never connected' in out, 'report: %s' % out)
    expect(not os.path.exists(s.rec), 'a deadlocked session left an archive')
    # Reported as a stopped session: rank 0's figures up to its last
    # completed op and where it waited, no runtime or finish of 0 read as
    # results, and the missing archive said.
    expect('(partial)' in out and 'until_s' in out and 'in recv' in out, 'deadlock report: %s' % out)
    expect([l.split()[-1] for l in out.splitlines() if l.startswith('       1 ')] == ['evicted'],
           'evicted rank not named so: %s' % out)
    rep = json.load(open(s.json))
    expect(rep['results'].get('partial') is True and rep['results']['ranks'][0]['finish_s'] is None,
           'deadlock JSON: %s' % rep['results'])
    expect('no --record archive written: the session deadlocked' in open(s.err).read(), 'archive note: %s'
           % open(s.err).read())



def paced_bound(d):
    """Paced mode stops the session when its measured time would pass the
    bound of 2^62 - 2^56 ps (--pace 1e6: 4.6 s of wall time): a stop once
    the clients ran, as --max-lag-ms's, status 1 (it was 2, bad input),
    the line to the client (ERROR 13)."""
    script = os.path.join(d, 'bound.py')
    open(script, 'w').write('import sys, time\nsys.path.insert(0, sys.argv[1])\nimport netloom_client as nl\n'
                            'c = nl.Client(sys.argv[2], 0, timeout_ms=20000)\ntime.sleep(5.5)\n'
                            'try:\n    c.compute(1000)\n    c.close()\nexcept nl.NetloomError as e:\n    print(e)\n')
    ep = 'ipc://%s/bound.sock' % d
    procs = clients_start([[PY, script, PYDIR, ep]], d, 'bound')
    r = subprocess.run([NETLOOM, 'serve', '--ranks', '1', '--listen', ep, '-s', 'backend=analytic', '-q',
                        '--pace', '1e6', '--connect-timeout-ms', '5000', '--timeout-ms', '20000'],
                       capture_output=True, text=True, timeout=TMO)
    (crc, out), = clients_wait(procs)
    line = ('paced: virtual time would pass 2^62 - 2^56 ps (4539628 s), the most a session holds (--pace 1e+06: '
            '5 s of wall time)')
    expect(r.returncode == 1 and r.stderr == 'netloom serve: %s\n' % line and line in out,
           'paced past the time bound: rc %d, %r, client %d %s' % (r.returncode, r.stderr, crc, out))


def outputs_lost(d):
    """An output that cannot be written once the clients ran (a full disk)
    is the work failing, status 1 (docs/results.md), not bad input (2, as
    before); its one line names the option and the cause (--json named
    neither the option, --messages under a file size limit not the cause,
    --record the rank's temporary stream file). Nothing is left beside it."""
    def run(name, opts, iters, fsize=None):
        w = os.path.join(d, 'lost-' + name)
        os.mkdir(w)
        ep = 'ipc://%s/s.sock' % w

        def limit():  # the shell's `trap '' XFSZ; ulimit -f`
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        p = popen([os.path.abspath(NETLOOM), 'serve', '--ranks', '2', '--listen', ep, '-s',
                              'backend=analytic', '-q'] + opts, cwd=w, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, preexec_fn=limit if fsize else None)
        t0 = time.time()
        while not os.path.exists(ep[6:]) and p.poll() is None and time.time() - t0 < 10:
            time.sleep(0.02)
        res = clients([[RING, ep, str(r), str(iters), '64'] for r in range(2)], w, 'c')
        out, err = p.communicate(timeout=TMO)
        left = sorted(f for f in os.listdir(w) if not f.startswith('c'))
        return p.returncode, err, out, [rc for rc, _ in res], left
    # The text report goes before --json (kept), after --messages (none:
    # docs/live.md).
    for opt in ('--json', '--messages'):
        rc, err, out, crc, left = run('full' + opt, [opt, '/dev/full'], 3)
        expect(rc == 1 and err == 'netloom serve: %s: /dev/full: write failed: No space left on device\n' % opt and
               crc == [0, 0] and (out.startswith('netloom serve: 2 ranks') if opt == '--json' else not out),
               '%s /dev/full: rc %d, clients %s, %r, stdout %r' % (opt, rc, crc, err, out[:100]))
    # The log's write fails mid-session: the session stops then, as for a
    # --record stream (the clients ran their 3,000 iterations to the end,
    # then the server exited 1).
    rc, err, out, crc, left = run('fsize-msgs', ['--messages', 'm.msgs'], 3000, 1024)
    expect(rc == 1 and err == 'netloom serve: --messages: m.msgs: write failed: File too large\n' and 0 not in crc
           and not left, '--messages, 1 KiB file size limit: rc %d, clients %s, %r, left %s' % (rc, crc, err, left))
    # The archive (2,227 bytes) over the limit, its streams (about 1 KiB
    # each) within it; then a rank's stream over it, which stops the session.
    rc, err, out, crc, left = run('fsize-rec', ['--record', 'r.nlt'], 100, 2048)
    expect(rc == 1 and err == 'netloom serve: --record: r.nlt: write failed: File too large\n' and crc == [0, 0] and
           not left, '--record, 2 KiB file size limit: rc %d, clients %s, %r, left %s' % (rc, crc, err, left))
    rc, err, out, crc, left = run('fsize-stream', ['--record', 'r.nlt'], 3000, 1024)
    expect(rc == 1 and re.fullmatch(r'netloom serve: --record: r\.nlt: rank [01]: write failed: File too large\n', err)
           and not left, '--record stream, 1 KiB file size limit: rc %d, %r, left %s' % (rc, err, left))


def case_all_evicted(d):
    """A session where every rank was evicted (nobody connected) fails:
    exit status 1, one line, the report written, no --record archive (it
    exited 0 with an archive of empty ranks that replayed to 0 s). Some
    evicted and the others finished is still exit 0 with an archive."""
    s = Server(d, 3, '-s', 'backend=analytic', '--connect-timeout-ms', '500', name='none')
    rc = s.wait()
    err = open(s.err).read().splitlines()
    expect(rc == 1 and err[-1] == 'netloom serve: no rank finished: all 3 ranks were evicted (no --record archive written)'
           and len([l for l in err if 'no rank finished' in l]) == 1, 'nobody came: rc %d, %s' % (rc, err))
    expect(not os.path.exists(s.rec), 'a session with no rank finished left an archive')
    doc = json.load(open(s.json))
    ranks = doc['live']['ranks']
    expect([x['state'] for x in ranks] == ['evicted'] * 3 and 'never connected' in ranks[2]['what_happened'],
           'JSON ranks: %s' % ranks)
    # An evicted rank did not finish: finish_s null, as predicted_s (it was
    # 0.0, the end of a stream that never began).
    expect(doc['results']['runtime']['predicted_s'] is None and
           [x['finish_s'] for x in doc['results']['ranks']] == [None] * 3, 'JSON results: %s' % doc['results'])
    expect('rank 0: evicted' in open(s.out).read(), 'report: %s' % open(s.out).read())
    # The text's finish_s says no finish, as the JSON (it said 0.000000000).
    rows = rank_rows(open(s.out).read())
    expect([rows[r][4:] for r in range(3)] == [['-', '0', 'evicted']] * 3, 'nobody came: text rows %s' % rows)
    # Many ranks: the sweep is one pass (it was quadratic: 40,000 ranks took
    # 4.9 s, 100,000 about 30 s; now about 1.5 s) and the log takes the
    # first 20 evictions of a kind, then one line, and a count at the end
    # (it had a line per rank: 14 MB for 222k ranks). The server's CPU time
    # is measured, not the wall time, which the machine's load stretches
    # (25 to 38 s for 5 s of CPU at load 8 on 2 cores).
    n = 100000
    many = os.path.join(d, 'many')
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run([NETLOOM, 'serve', '--ranks', str(n), '--listen', 'ipc://%s.sock' % many,
                        '--connect-timeout-ms', '300', '--json', many + '.json'],
                       stdout=open(many + '.out', 'w'), stderr=subprocess.PIPE, text=True, timeout=TMO)
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    took = ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime
    err = r.stderr.splitlines()
    logged = [l for l in err if ' evicted: never connected within 300 ms' in l]
    expect(r.returncode == 1 and len(logged) == 20 and logged[-1] == 'netloom serve: rank 19 evicted: never connected '
           'within 300 ms' and 'netloom serve: evictions (never connected): further ones are counted, not logged '
           '(the report names every rank)' in err and 'netloom serve: evictions (never connected): %d ranks in all, '
           '%d not logged' % (n, n - 20) in err and len(err) == 24, '%d ranks: rc %d, %s' % (n, r.returncode, err))
    expect(json.load(open(many + '.json'))['live']['evictions'] == n, 'JSON evictions')
    expect(took < 20, '%d ranks that never connected took %.1f s of CPU time to evict and report' % (n, took))
    record_many_ranks(d)
    s1 = Server(d, 1, '-s', 'backend=analytic', '--connect-timeout-ms', '300', name='one')
    rc = s1.wait()
    err = open(s1.err).read().splitlines()
    expect(rc == 1 and err[-1] == 'netloom serve: no rank finished: rank 0 was evicted (no --record archive written)',
           'one rank: rc %d, %s' % (rc, err))
    if subprocess.run([PY, '-c', 'import zmq'], capture_output=True).returncode != 0:
        print('SKIP: %s cannot import zmq (python3-zmq): the partial session not tried' % PY)
        return
    script = os.path.join(d, 'alone.py')
    open(script, 'w').write('import sys\nsys.path.insert(0, sys.argv[1])\nimport netloom_client as nl\n'
                            'c = nl.Client(sys.argv[2], 0, timeout_ms=20000)\nc.compute(1000000)\nc.close()\n')
    # Rank 0's client starts first, so the 3 s window is not spent starting
    # Python (a 500 ms one, after the server, missed it once at load 9);
    # rank 1 never connects, and the session waits the window out for it.
    procs = clients_start([[PY, script, PYDIR, 'ipc://%s/some.sock' % d]], d, 'alone')
    p = Server(d, 2, '-s', 'backend=analytic', '--connect-timeout-ms', '3000', name='some')
    (crc, out), = clients_wait(procs)
    expect(crc == 0, 'client: %s' % out)
    rc = p.wait()
    expect(rc == 0 and os.path.exists(p.rec), 'one finished, one evicted: rc %d, %s' % (rc, open(p.err).read()))
    doc = json.load(open(p.json))
    ranks = doc['live']['ranks']
    expect([x['state'] for x in ranks] == ['finished', 'evicted'], 'JSON ranks: %s' % ranks)
    res = doc['results']
    expect(res['ranks'][0]['finish_s'] == res['runtime']['predicted_s'] > 0 and res['ranks'][1]['finish_s'] is None
           and 'finished' not in res['ranks'][1] and 'partial' not in res,
           'one finished, one evicted: JSON results %s' % res)
    rows = rank_rows(open(p.out).read())
    expect(rows[0][4:] == ['%.9f' % res['ranks'][0]['finish_s'], '0'] and rows[1][4:] == ['-', '0', 'evicted'],
           'one finished, one evicted: text rows %s' % rows)
    jobs_finish(d)
    record_many_ranks(d, script)
    notices_coalesced(d)


def notices_coalesced(d):
    """Ranks in one job, rank 0's client connects and reads nothing for a
    while (busy): each never-connected eviction sent it a notice, and more
    than the 1,000 frames the server queues for a connection got the client
    evicted for 'stopped reading' (it failed, the session exited 1). The
    pass's notices are one, naming the count and the first ranks. 3,000
    ranks, not the 1,100 of record_many_ranks' case: the client's receive
    queue (1,000 frames) and the socket buffers took up to about 1,900
    notices here, which made 1,100 fail only under load."""
    n = 3000
    name = 'notices'
    ep = 'ipc://%s/%s.sock' % (d, name)
    script = os.path.join(d, name + '.py')
    open(script, 'w').write('import sys, time\nsys.path.insert(0, sys.argv[1])\nimport netloom_client as nl\n'
                            'c = nl.Client(sys.argv[2], 0, timeout_ms=20000)\ntime.sleep(4)\n'
                            'c.compute(1000000)\nc.close()\n')
    procs = clients_start([[PY, script, PYDIR, ep]], d, name)
    r = subprocess.run([NETLOOM, 'serve', '--ranks', str(n), '--listen', ep, '-s', 'backend=analytic',
                        '--connect-timeout-ms', '3000', '--timeout-ms', '20000'],
                       capture_output=True, text=True, timeout=TMO)
    (crc, out), = clients_wait(procs)
    expect(crc == 0 and r.returncode == 0 and 'stopped reading' not in r.stderr,
           'one client of %d ranks: client %d %s, server %d %s' % (n, crc, out, r.returncode, r.stderr[-600:]))


def nofile(soft, hard):
    return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def record_many_ranks(d, alone=None):
    """--record holds a stream file per rank: under the usual soft limit of
    1024 open files a session of 1,100 ranks was refused at start ('...
    rank1012.tmp: cannot create: Too many open files', exit 2), though the
    hard limit allowed it; netloom raises its soft limit to the hard one.
    A limit too low for the ranks' streams and connections is refused
    before the session, in one line saying what to raise it to. With
    `alone` (a client script), rank 0 finishes and the archive has every
    rank; without, nobody comes (exit 1, as for 3 ranks)."""
    n = 1100
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    name = 'rec%d%s' % (n, 'a' if alone else '')
    rec = os.path.join(d, name + '.nlt')
    ep = 'ipc://%s/%s.sock' % (d, name)
    args = [NETLOOM, 'serve', '--ranks', str(n), '--listen', ep, '--record', rec, '-s', 'backend=analytic',
            '--connect-timeout-ms', '3000' if alone else '300']
    if not alone:
        r = subprocess.run(args, capture_output=True, text=True, timeout=TMO, preexec_fn=nofile(1024, 1024))
        expect(r.returncode == 2 and r.stderr == 'netloom serve: --record: 1100 ranks need 2264 open files (a stream file '
               'and a connection each, and 64 for the server), above the limit of 1024 (ulimit -n, which netloom '
               'raises to the hard limit, ulimit -Hn); raise ulimit -n to at least 2264\n' and not r.stdout,
               'hard limit 1024: rc %d, %r' % (r.returncode, r.stderr))
        left = [f for f in os.listdir(d) if f.startswith(name)]
        expect(not left, 'a refused session left %s' % left)
    if hard != resource.RLIM_INFINITY and hard < 2264:
        print('SKIP: hard limit on open files %d: no session of %d ranks recorded' % (hard, n))
        return
    if not alone:
        r = subprocess.run(args, capture_output=True, text=True, timeout=TMO, preexec_fn=nofile(1024, hard))
        expect(r.returncode == 1 and r.stderr.splitlines()[-1] == 'netloom serve: no rank finished: all %d ranks were '
               'evicted (no --record archive written)' % n, 'soft limit 1024: rc %d, %s' % (r.returncode, r.stderr))
        return
    # One job: the 1,099 evictions reach rank 0 as one notice (coalesced,
    # notices_coalesced). Not rank 0 in a job of its own: a job of which
    # no rank finished fails the session (jobs_never_connected).
    procs = clients_start([[PY, alone, PYDIR, ep]], d, name)
    r = subprocess.run(args, capture_output=True, text=True, timeout=TMO, preexec_fn=nofile(1024, hard))
    (crc, out), = clients_wait(procs)
    expect(crc == 0 and r.returncode == 0, 'soft limit 1024, rank 0 came: client %d %s, server %d %s' %
           (crc, out, r.returncode, r.stderr[-600:]))
    info = subprocess.run([NETLOOM, 'trace', 'info', '--json', rec], capture_output=True, text=True, timeout=TMO)
    expect(info.returncode == 0 and json.loads(info.stdout)['ranks'] == n, 'the archive: %s' % info.stderr)


JOBFIN = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
ep, rank, job, mode = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
c = nl.Client(ep, rank, job=job, timeout_ms=20000)
try:
    if mode == 'pair':  # ranks 0 and 1: 3 us, a message each way, done
        c.compute(3000000)
        r = c.isend(1 - rank, 0, b'x' * 16)
        c.recv(1 - rank, 0, 64)
        c.wait(r)
        c.close()
    elif mode == 'self':  # 3 us, a message to itself, done
        c.compute(3000000)
        r = c.isend(rank, 0, b'x' * 16)
        c.recv(rank, 0, 64)
        c.wait(r)
        c.close()
    elif mode == 'alone':  # 3 us, done
        c.compute(3000000)
        c.close()
    elif mode == 'silent':  # 12 us of compute, then silent until evicted
        c.compute(5000000)
        c.compute(7000000)
        time.sleep(4)
    else:  # 1 us, then a receive from rank 4, which never connects
        c.compute(1000000)
        c.recv(4, 0, 64)
except nl.NetloomError as e:
    print(e)
"""


def jobs_never_connected(d, script):
    """Under --jobs, a job none of whose ranks ever connects (its program
    never started: a batch script's second mpirun failed) made a session
    of status 0 once the other job finished, which a batch script took
    for a success. Now status 1, one line naming the job (every such job,
    and why), the per-job report as before, no --record archive."""
    # Job 1 (ranks 0-1) runs; job 2 (ranks 2-3) never comes. The clients
    # start first: the window is not spent starting Python.
    ep = 'ipc://%s/jfabsent.sock' % d
    procs = clients_start([[PY, script, PYDIR, ep, str(r), '1', 'pair'] for r in range(2)], d, 'jfa')
    s = Server(d, 4, '-s', 'backend=analytic', '--jobs', '2,2', '--connect-timeout-ms', '3000', name='jfabsent')
    res = clients_wait(procs)
    rc, err = s.wait(), open(s.err).read().splitlines()
    expect(res == [(0, '')] * 2 and rc == 1 and err[-1] == 'netloom serve: no rank finished in job 2 (ranks 2-3): '
           'none of its 2 ranks ever connected (no --record archive written)'
           and len([l for l in err if 'no rank finished' in l]) == 1 and not os.path.exists(s.rec),
           'job 2 never connected: clients %s, server %d %s' % (res, rc, err))
    text = open(s.out).read().splitlines()
    jobs = json.load(open(s.json))['live']['jobs']
    # The report says what the exit line says: job 2's ranks were evicted
    # for never connecting (it said '2 evicted, 0 never connected', the
    # JSON never_connected 0, beside 'none of its 2 ranks ever connected');
    # never_connected keeps its meaning, ranks not yet connected at the end.
    expect([l for l in text if l.startswith('  job ')][1] == '  job 2 (ranks 2-3): 0 finished, 2 evicted (2 never '
           'connected), 0 not yet connected at the end; 0 messages delivered, 0 refused frames, finish none finished'
           and [(j['finished'], j['evicted'], j['evicted_never_connected'], j['never_connected']) for j in jobs]
           == [(2, 0, 0, 0), (0, 2, 2, 0)],
           'job 2 never connected: report %s, JSON jobs %s' % (text, jobs))
    # Three jobs, two of which no rank finished: both named, each with why
    # (job 3's rank 3 connected, then fell silent; its rank 4 never came).
    ep = 'ipc://%s/jfabsent3.sock' % d
    procs = clients_start([[PY, script, PYDIR, ep, str(r), '1', 'pair'] for r in range(2)] +
                          [[PY, script, PYDIR, ep, '3', '3', 'silent']], d, 'jfa3')
    s = Server(d, 5, '-s', 'backend=analytic', '--jobs', '2,1,2', '--connect-timeout-ms', '3000',
               '--heartbeat-ms', '200', '--timeout-ms', '1000', name='jfabsent3')
    res = clients_wait(procs)
    rc, err = s.wait(), open(s.err).read().splitlines()
    expect([c for c, _ in res] == [0, 0, 0] and rc == 1 and err[-1] == 'netloom serve: no rank finished in 2 of 3 '
           'jobs: job 2 (rank 2): rank 2 never connected; job 3 (ranks 3-4): all 2 ranks were evicted (1 never '
           'connected) (no --record archive written)' and not os.path.exists(s.rec),
           'jobs 2 and 3: clients %s, server %d %s' % (res, rc, err))
    text = [l for l in open(s.out).read().splitlines() if l.startswith('  job ')]
    jobs = json.load(open(s.json))['live']['jobs']
    expect(text[1].startswith('  job 2 (rank 2): 0 finished, 1 evicted (1 never connected), 0 not yet connected at '
                              'the end; ')
           and text[2].startswith('  job 3 (ranks 3-4): 0 finished, 2 evicted (1 never connected), 0 not yet '
                                  'connected at the end; ')
           and [(j['evicted'], j['evicted_never_connected'], j['never_connected']) for j in jobs]
           == [(0, 0, 0), (1, 1, 0), (2, 1, 0)],
           'jobs 2 and 3: report %s, JSON jobs %s' % (text, jobs))


def jobs_finish(d):
    """A job's finish time and the session's virtual runtime come from
    finished ranks only. They took the latest end of any rank: a job whose
    ranks were all evicted after computing 12 us finished at 13 us, and so
    did the session (job 1 finished at 4 us); a job of which no rank
    finished, its rank 4 never connected, finished at 0. A job of which
    no rank finished fails the session, as a session of which none did:
    status 1, one line naming the job (it was 0, job 1 having finished),
    the report as it was, no archive."""
    script = os.path.join(d, 'jobfin.py')
    open(script, 'w').write(JOBFIN)
    jobs_never_connected(d, script)
    s = Server(d, 4, '-s', 'backend=analytic', '--jobs', '2,2', '--heartbeat-ms', '200', '--timeout-ms', '1000',
               name='jfsilent')
    modes = ('pair', 'pair', 'silent', 'silent')
    clients([[PY, script, PYDIR, s.ep, str(r), str(1 + r // 2), modes[r]] for r in range(4)], d, 'jfs')
    rc, err = s.wait(), open(s.err).read().splitlines()
    expect(rc == 1 and err[-1] == 'netloom serve: no rank finished in job 2 (ranks 2-3): all 2 ranks were evicted '
           '(no --record archive written)' and not os.path.exists(s.rec),
           'job 2 evicted: server %d %s' % (rc, err))
    rep, text = json.load(open(s.json)), open(s.out).read()
    fin = max(x['finish_s'] for x in rep['results']['ranks'][:2])
    jobs = rep['live']['jobs']
    expect(rep['results']['runtime']['predicted_s'] == fin and fin < 12e-6 and jobs[0]['finish_ps'] == round(
        fin * 1e12) and jobs[1]['finish_ps'] is None, 'job 2 evicted: runtime %s, jobs %s'
        % (rep['results']['runtime'], jobs))
    lines = text.splitlines()
    expect([x['finish_s'] for x in rep['results']['ranks'][2:]] == [None, None],
           'job 2 evicted: JSON ranks %s' % rep['results']['ranks'])
    expect(lines[0].endswith('virtual runtime %.9f s, 2 messages delivered' % fin)
           and '  job 2 (ranks 2-3): 0 finished, 2 evicted, 0 not yet connected at the end; 0 messages delivered, '
           '0 refused frames, finish none finished' in lines
           and [j['evicted_never_connected'] for j in jobs] == [0, 0]
           and [l.split()[-1] for l in lines if l.split()[:1] in (['2'], ['3'])] == ['evicted', 'evicted'],
           'job 2 evicted: text %s' % text)
    # Evicted after computing 12 us: no finish in the text either (its
    # finish_s said 0.000012000, where its stream ended).
    rows = rank_rows(text)
    expect([rows[r][4] for r in range(4)] == ['%.9f' % x['finish_s'] for x in rep['results']['ranks'][:2]] + ['-'] * 2
           and float(rows[2][1]) >= 12e-6, 'job 2 evicted: text rows %s' % rows)
    # Rank 4 never connects: ranks 2 and 3 wait on it forever (deadlock).
    s = Server(d, 5, '-s', 'backend=analytic', '--jobs', '2,3', '--connect-timeout-ms', '3000', name='jfdead')
    modes = ('pair', 'pair', 'wait', 'wait')
    clients([[PY, script, PYDIR, s.ep, str(r), str(1 + r // 2), modes[r]] for r in range(4)], d, 'jfd')
    expect(s.wait() == 1, 'deadlock: server %s' % open(s.err).read())
    rep = json.load(open(s.json))
    jobs = rep['live']['jobs']
    # Partial results: the evicted rank 4 is not "finished" (it was, with
    # finish_s 0.0), as ranks 2 and 3, which wait; ranks 0 and 1 finished.
    expect([(x['finished'], x['finish_s'] is None) for x in rep['results']['ranks']] ==
           [(True, False)] * 2 + [(False, True)] * 3, 'deadlock: JSON ranks %s' % rep['results']['ranks'])
    expect(jobs[0]['finished'] == 2 and (jobs[0]['finish_ps'] or 0) > 0 and jobs[1]['finished'] == 0
           and jobs[1]['finish_ps'] is None,
           'deadlock: jobs %s' % jobs)
    expect('  job 2 (ranks 2-4): 0 finished, 1 evicted (1 never connected), 0 not yet connected at the end; 0 '
           'messages delivered, 0 refused frames, finish none finished' in open(s.out).read().splitlines(), 'deadlock: text %s'
           % open(s.out).read())
    # Partial: until_s is where each rank's figures end, the evicted rank's
    # too (its stream's end, as the JSON's until_s), `evicted` at the stop.
    rows = rank_rows(open(s.out).read())
    expect([rows[r][4] for r in range(5)] == ['%.9f' % x['until_s'] for x in rep['results']['ranks']]
           and [rows[r][6:] for r in range(5)] == [['finished']] * 2 + [['in', 'recv']] * 2 + [['evicted']],
           'deadlock: text rows %s, JSON %s' % (rows, rep['results']['ranks']))
    # One-rank jobs: 'rank 1' and '1 message', where the lines said
    # '(ranks 1-1)' and '1 messages delivered'.
    s = Server(d, 2, '-s', 'backend=analytic', '--jobs', '1,1', name='jfone')
    clients([[PY, script, PYDIR, s.ep, str(r), str(1 + r), ('self', 'alone')[r]] for r in range(2)], d, 'jfo')
    expect(s.wait() == 0, 'one-rank jobs: server %s' % open(s.err).read())
    lines = [l for l in open(s.out).read().splitlines() if l.startswith('  job ')]
    expect(len(lines) == 2 and lines[0].startswith('  job 1 (rank 0): 1 finished, 0 evicted, 0 not yet connected at the end; '
                                                   '1 message delivered, 0 refused frames, finish ')
           and lines[1].startswith('  job 2 (rank 1): 1 finished, 0 evicted, 0 not yet connected at the end; 0 messages '
                                   'delivered, 0 refused frames, finish '), 'one-rank jobs: text %s' % lines)



def case_ipc_in_use(d):
    """An ipc:// endpoint a running server listens on is refused (exit 2,
    one line), not silently taken over; a stale socket file is replaced;
    the server removes its own socket file when it ends, fails or is
    stopped by a signal."""
    a = Server(d, 2, '-s', 'backend=analytic', '--connect-timeout-ms', '20000', name='a')
    path = a.ep[len('ipc://'):]
    r = subprocess.run([NETLOOM, 'serve', '--ranks', '1', '--listen', a.ep, '--connect-timeout-ms', '300', '-s',
                        'backend=analytic'], capture_output=True, text=True, timeout=TMO)
    expect(r.returncode == 2 and r.stderr == "netloom serve: --listen: '%s': in use by another server (it accepts "
           "connections there)\n" % a.ep, 'second server: %d %r' % (r.returncode, r.stderr))
    # The first server still has the endpoint: its ring runs.
    res = clients([[RING, a.ep, str(r), '2', '16'] for r in range(2)], d, 'a')
    expect(all(rc == 0 for rc, _ in res), 'clients of the first server: %s' % res)
    expect(a.wait() == 0, 'first server: %s' % open(a.err).read())
    expect(not os.path.exists(path), 'the socket file is left after a normal end')
    # A stale socket file (its server gone): bound over as before.
    stale = os.path.join(d, 'b.sock')
    so = socket.socket(socket.AF_UNIX)
    so.bind(stale)
    so.close()
    b = Server(d, 2, '-s', 'backend=analytic', name='b')
    res = clients([[RING, b.ep, str(r), '2', '16'] for r in range(2)], d, 'b')
    expect(all(rc == 0 for rc, _ in res) and b.wait() == 0, 'over a stale file: %s %s' % (res, open(b.err).read()))
    expect(not os.path.exists(stale), 'the socket file is left after a session over a stale one')
    # An error exit (nobody connected) and a SIGTERM stop remove it too.
    c = Server(d, 1, '-s', 'backend=analytic', '--connect-timeout-ms', '300', name='c')
    expect(c.wait() == 1 and not os.path.exists(c.ep[len('ipc://'):]), 'after a failed session: %s' % (
        os.listdir(d),))
    t = Server(d, 1, '-s', 'backend=analytic', name='t')
    time.sleep(0.3)
    t.p.send_signal(signal.SIGTERM)
    expect(t.wait() == 1 and not os.path.exists(t.ep[len('ipc://'):]), 'after SIGTERM: %s' % (os.listdir(d),))


CURVE_CLIENT = r'''
import struct, sys
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
ep, rank, srv, key = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
try:
    if key == 'plain':
        c = nl.Client(ep, rank, timeout_ms=1500)
    else:
        c = nl.Client(ep, rank, timeout_ms=int(sys.argv[6]), curve_server=srv, curve_key=key)
except nl.NetloomError as e:
    print('refused:', e); sys.exit(3)
for it in range(5):
    if rank == 0:
        c.send(1, it, struct.pack('<i', it)); st = c.recv(1, it)
    else:
        st = c.recv(0, it); c.send(0, it, st.data)
    assert struct.unpack('<i', st.data) == (it,), st.data
    print('got', it, flush=True)
c.close()
'''


# Key files read by both clients (argv: PYDIR LIBCLIENT ENDPOINT SERVER_PUB
# KEY...): what each says for each client key file, before any connection.
KEYCHECK = r"""
import ctypes, sys
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
L = ctypes.CDLL(sys.argv[2])
ep, srv = sys.argv[3], sys.argv[4]
L.nl_client_connect_curve.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_uint32,
                                      ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p,
                                      ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
for key in sys.argv[5:]:
    try:
        nl.Client(ep, 0, timeout_ms=300, curve_server=srv, curve_key=key)
        print('py accepted')
    except nl.NetloomError as e:
        print('py', e)
    c, err = ctypes.c_void_p(), ctypes.create_string_buffer(512)
    rc = L.nl_client_connect_curve(ctypes.byref(c), ep.encode(), 0, 1, 0, 300, srv.encode(), key.encode(), err, 512)
    print('c', err.value.decode() if rc < 0 else 'accepted')
"""


def curve_key_files(d, keys):
    """Key files refused by the server and both clients, naming the file
    and line; no message holds 8 characters in a row of a secret key."""
    def secret(path):
        return [l.partition('=')[2].strip() for l in open(path) if l.startswith('secret')][0]

    def leaks(text, sec):
        return [sec[i:i + 8] for i in range(len(sec) - 7) if sec[i:i + 8] in text]

    def serve(*args):
        return subprocess.run([NETLOOM, 'serve', '--ranks', '1', '--listen', 'ipc://%s/ck' % d] + list(args),
                              capture_output=True, text=True, timeout=TMO)
    sk, ak = keys['server'], keys['alice']
    lines = open(sk).read().splitlines()  # comment, public, secret
    # The key pair given as the allowed list: its secret line was quoted.
    r = serve('--curve-key', sk, '--curve-allow', sk)
    expect(r.returncode == 2 and r.stderr == "netloom serve: --curve-allow: '%s' line 3: a secret key ('secret = ...'), "
           "expected public keys only (the clients' .pub files); a secret key must stay with its owner\n" % sk
           and not leaks(r.stderr, secret(sk)), 'secret in --curve-allow: %r' % r.stderr)
    # A malformed secret key (one character short; one character changed
    # to a non-Z85 one): its line and length or position, none of its text.
    cut = os.path.join(d, 'cut.key')
    open(cut, 'w').write('%s\n%s\n%s\n' % (lines[0], lines[1], lines[2][:-1]))
    odd = os.path.join(d, 'odd.key')
    open(odd, 'w').write('%s\n%s\n%s"%s\n' % (lines[0], lines[1], lines[2][:-21], lines[2][-20:]))
    for path, why in ((cut, '39 characters, not 40'), (odd, "character 20 is outside Z85's alphabet")):
        r = serve('--curve-key', path, '--curve-allow', ak + '.pub')
        want = "netloom serve: CURVE key file '%s' line 3: malformed secret key (%s), expected 40 Z85 characters\n" % (path,
                                                                                                           why)
        expect(r.returncode == 2 and r.stderr == want and not leaks(r.stderr, secret(sk)),
               'malformed secret: %r, expected %r' % (r.stderr, want))
    # A public key that is not the secret key's: it was taken, and every
    # client then failed with only "no WELCOME".
    mix = os.path.join(d, 'mix.key')
    open(mix, 'w').write('%s\n%s\n' % (open(ak).read().splitlines()[1], lines[2]))
    mixmsg = "CURVE key file '%s': the public key (line 1) is not the secret key's (line 2), expected the pair " \
             "--curve-keygen wrote" % mix
    r = serve('--curve-key', mix, '--curve-allow', ak + '.pub')
    expect(r.returncode == 2 and r.stderr == 'netloom serve: %s\n' % mixmsg and not leaks(r.stderr, secret(sk)),
           'mismatched pair: %r' % r.stderr)
    # Files that are no key file: /dev/zero was read as empty lines forever
    # (fgets), a FIFO blocked open until a writer came, a NUL or a line
    # past 255 bytes was cut into lines. Refused at once, in one line, by
    # the server (--curve-key and --curve-allow) and both clients alike.
    fifo = os.path.join(d, 'fifo.key')
    os.mkfifo(fifo)
    nul = os.path.join(d, 'nul.key')
    open(nul, 'wb').write(b'# key\n\0%s\n%s\n' % (lines[1].encode(), lines[2].encode()))
    long_ = os.path.join(d, 'long.key')
    open(long_, 'w').write('#%s%s\n%s\n' % ('x' * 300, lines[1], lines[2]))
    bad = ((zero := '/dev/zero', '%s: is a character device, not a %%s; expected a regular file' % zero),
           (fifo, '%s: is a FIFO, not a %%s; expected a regular file' % fifo),
           (nul, "%%s '%s' line 2: unexpected NUL byte; expected a text file" % nul),
           (long_, "%%s '%s' line 1: longer than 255 bytes; expected one key (40 characters) a line" % long_))
    for path, msg in bad:
        r = serve('--curve-key', path, '--curve-allow', ak + '.pub')
        want = 'netloom serve: %s\n' % (msg % 'CURVE key file')
        expect(r.returncode == 2 and r.stderr == want and not leaks(r.stderr, secret(sk)),
               '--curve-key %s: %d %r, expected %r' % (path, r.returncode, r.stderr, want))
        r = serve('--curve-key', sk, '--curve-allow', path)
        want = 'netloom serve: --curve-allow: %s\n' % (msg % 'key list')
        expect(r.returncode == 2 and r.stderr == want and not leaks(r.stderr, secret(sk)),
               '--curve-allow %s: %d %r, expected %r' % (path, r.returncode, r.stderr, want))
    expect(not os.path.exists('%s/ck' % d), 'a refused key file left a socket')
    # Both clients alike: a missing file named as the CURVE key file (the
    # Python client said only "[Errno 2] ..."), a mismatched pair, a
    # malformed secret key.
    script = os.path.join(d, 'keycheck.py')
    open(script, 'w').write(KEYCHECK)
    nothere = os.path.join(d, 'nonexist')
    r = subprocess.run([PY, script, PYDIR, LIBCLIENT, 'ipc://%s/nobody' % d, sk + '.pub', nothere, mix, cut]
                       + [path for path, _ in bad], capture_output=True, text=True, timeout=TMO)
    want = []
    for msg in ['%s: cannot open CURVE key file: No such file or directory' % nothere, mixmsg,
                "CURVE key file '%s' line 3: malformed secret key (39 characters, not 40), expected 40 Z85 characters"
                % cut] + [msg % 'CURVE key file' for _, msg in bad]:
        want += ['py ' + msg, 'c ' + msg]
    expect(r.returncode == 0 and r.stdout.splitlines() == want and not leaks(r.stdout, secret(sk)),
           'client key files: %d %s %s\nexpected\n%s' % (r.returncode, r.stdout, r.stderr, '\n'.join(want)))
    # The server's key pair given for its .pub (server.key for
    # server.key.pub): its public line was read without a word, and every
    # client then held the server's secret. Refused naming the line, in
    # both clients alike; a .pub that holds a secret is named as such.
    pubsec = os.path.join(d, 'copy.pub')
    open(pubsec, 'w').write(open(sk).read())
    for path, expected in ((sk, sk + '.pub'), (pubsec, 'the .pub --curve-keygen wrote')):
        r = subprocess.run([PY, script, PYDIR, LIBCLIENT, 'ipc://%s/nobody' % d, path, ak],
                           capture_output=True, text=True, timeout=TMO)
        msg = ("CURVE server key file '%s' holds a secret key (line 3); expected the server's public key file (%s): "
               "a client never needs the server's secret" % (path, expected))
        want = ['py ' + msg, 'c ' + msg]
        expect(r.returncode == 0 and r.stdout.splitlines() == want and not leaks(r.stdout, secret(sk)),
               'server key pair for its .pub: %d %s %s\nexpected\n%s' % (r.returncode, r.stdout, r.stderr,
                                                                        '\n'.join(want)))


# What a client says when the handshake before its WELCOME fails, the
# server closes the connection after it, or nothing answers (argv: PYDIR
# LIBCLIENT, then LABEL ENDPOINT SERVER_PUB KEY TIMEOUT_MS ... with '-' for
# no CURVE; ENDPOINT 'closing': a ROUTER in this process that takes the
# HELLO and closes, 'silent': one that never answers, 'listener': a socket
# that takes connections and never speaks). A failed handshake and a
# closed connection said only "no WELCOME ... within N ms: no server
# answered there" after the whole connect timeout, 20 s here.
HELLO_CHECK = r"""
import ctypes, os, socket, sys, tempfile, threading
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
import zmq
L = ctypes.CDLL(sys.argv[2])
L.nl_client_connect_curve.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_uint32,
                                      ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p,
                                      ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]


def fake(kind):
    # A server of this kind on a new endpoint; stop() ends it once the
    # client returned (a failed handshake sends no HELLO).
    path = tempfile.mkdtemp() + '/' + kind
    if kind == 'listener':
        ls = socket.socket(socket.AF_UNIX)
        ls.bind(path)
        ls.listen(4)
        return 'ipc://' + path, ls.close
    ctx = zmq.Context()
    sock = ctx.socket(zmq.ROUTER)
    sock.bind('ipc://' + path)
    done = threading.Event()

    def run():
        while not done.is_set():
            if kind == 'closing' and sock.poll(100):
                sock.recv_multipart()
                break
            done.wait(0.1 if kind == 'silent' else 0)
        sock.close(linger=0)
        ctx.term()
    t = threading.Thread(target=run)
    t.start()

    def stop():
        done.set()
        t.join()
    return 'ipc://' + path, stop


args = sys.argv[3:]
for i in range(0, len(args), 5):
    label, ep, srv, key, tmo = args[i:i + 5]
    for lang in ('py', 'c'):
        stop = None
        e = ep
        if ep in ('closing', 'silent', 'listener'):
            e, stop = fake(ep)
        if lang == 'py':
            try:
                kw = {} if key == '-' else {'curve_server': srv, 'curve_key': key}
                nl.Client(e, 0, timeout_ms=int(tmo), **kw).close()
                msg = 'accepted'
            except nl.NetloomError as x:
                msg = str(x)
        else:
            c, err = ctypes.c_void_p(), ctypes.create_string_buffer(1024)
            rc = L.nl_client_connect_curve(ctypes.byref(c), e.encode(), 0, 1, 0, int(tmo),
                                           None if key == '-' else srv.encode(), None if key == '-' else key.encode(),
                                           err, 1024)
            msg = err.value.decode() if rc < 0 else 'accepted'
        if stop:
            stop()
        print('%s %s: %s' % (lang, label, msg.replace(e, 'EP')), flush=True)
"""
REFUSED_KEY = ("the server at '%s' refused this client's CURVE key (ZAP status 400): add the key file's public key "
               "(its .pub) to the server's --curve-allow file",)
CURVE_FAILED = ("the CURVE handshake with '%s' failed: the server there does not use CURVE, or its key is not the "
                "one in the server public key file given (expected the .pub of its --curve-key)",)
# libzmq reports the mechanism mismatch, or, when the server closed first,
# a failure without detail (EPIPE): either line names CURVE.
PLAIN_ON_CURVE = ("the server at '%s' requires CURVE (netloom serve --curve-key): give this client the server's "
                  "public key file and a key pair of its own (docs/live.md, Encryption)",
                  "the handshake with '%s' failed (libzmq gives no detail): expected netloom serve there; one "
                  "started with --curve-key refuses a client without the server's public key file and a key pair "
                  "of its own (docs/live.md, Encryption)")
CLOSED = ("the server at '%s' closed the connection before answering HELLO: netloom serve stopped or was killed; "
          "its output says why, start a new session",)
SILENT = ("no WELCOME from '%s' within 300 ms: the server there completed the handshake but did not answer HELLO "
          "(stopped or stuck?); its output says why, or raise timeout_ms",)
LISTENER = ("no WELCOME from '%s' within 300 ms: a process there took the connection but completed no ZeroMQ "
            "handshake; expected netloom serve there, running (one stopped, SIGSTOP, completes none either)",)


def hello_refusals(d, ep, srv, keys):
    """Both clients, each failed handshake and a server closing before its
    WELCOME: the cause in one line, at once."""
    script = os.path.join(d, 'hello.py')
    open(script, 'w').write(HELLO_CHECK)
    cases = [('refused', ep, srv, keys['mallory'], '20000', REFUSED_KEY),
             # alice's own public key taken for the server's
             ('serverkey', ep, keys['alice'] + '.pub', keys['alice'], '20000', CURVE_FAILED),
             ('plain', ep, '-', '-', '20000', PLAIN_ON_CURVE),
             ('curve-on-plain', 'closing', srv, keys['alice'], '20000', CURVE_FAILED),
             ('closed', 'closing', '-', '-', '20000', CLOSED),
             # what the connect timeout says names how far the connection got
             ('silent', 'silent', '-', '-', '300', SILENT),
             ('listener', 'listener', '-', '-', '300', LISTENER)]
    argv = [PY, script, PYDIR, LIBCLIENT]
    for c in cases:
        argv += list(c[:5])
    r = subprocess.run(argv, capture_output=True, text=True, timeout=TMO)
    lines = r.stdout.splitlines()
    expect(r.returncode == 0 and len(lines) == 2 * len(cases), 'hello refusals: %d %s %s'
           % (r.returncode, r.stdout, r.stderr))
    for i, line in enumerate(lines):
        label, want = cases[i // 2][0], cases[i // 2][5]
        lang = 'py' if i % 2 == 0 else 'c'
        expect(any(line == '%s %s: %s' % (lang, label, w % 'EP') for w in want),
               'hello refusals: %r, expected one of %r' % (line, want))


def case_curve(d):
    if subprocess.run([PY, '-c', 'import zmq; assert zmq.has("curve")'], capture_output=True).returncode != 0:
        print('SKIP: no pyzmq with CURVE for %s' % PY)
        sys.exit(77)
    keys = {}
    # The fixed temporary name FILE.tmp, left by a keygen that was killed,
    # refused the next one ("File exists"); now each makes its own, gone
    # once the key is in place.
    open(os.path.join(d, 'server.key.tmp'), 'w').close()
    for name in ('server', 'alice', 'carol', 'mallory'):
        keys[name] = os.path.join(d, name + '.key')
        r = subprocess.run([NETLOOM, 'serve', '--curve-keygen', keys[name]], capture_output=True, text=True)
        expect(r.returncode == 0, 'keygen: %s' % r.stderr)
    left = sorted(f for f in os.listdir(d) if '.tmp' in f)
    expect(left == ['server.key.tmp'], 'keygen left temporary files: %s' % left)
    expect(os.stat(keys['server']).st_mode & 0o777 == 0o600, 'secret key file is not 0600')
    expect('secret' not in open(keys['server'] + '.pub').read(), '.pub holds the secret')
    r = subprocess.run([NETLOOM, 'serve', '--curve-keygen', keys['server']], capture_output=True, text=True)
    expect(r.returncode != 0 and 'exists' in r.stderr, 'keygen over a key: %s' % r.stderr)
    # Nor over a .pub alone (it was replaced without a word), nor with
    # options it would ignore (it made the keys and served nothing).
    lone = os.path.join(d, 'lone.key')
    open(lone + '.pub', 'w').write('x\n')
    r = subprocess.run([NETLOOM, 'serve', '--curve-keygen', lone], capture_output=True, text=True)
    expect(r.returncode == 2 and r.stderr == "netloom serve: --curve-keygen: '%s.pub' exists, expected a new file "
           "(FILE.pub is written too)\n" % lone and open(lone + '.pub').read() == 'x\n'
           and not os.path.exists(lone), 'keygen over a .pub: %d %r' % (r.returncode, r.stderr))
    r = subprocess.run([NETLOOM, 'serve', '--ranks', '2', '--curve-keygen', os.path.join(d, 'k2.key')],
                       capture_output=True, text=True)
    expect(r.returncode == 2 and r.stderr == "netloom serve: --curve-keygen FILE writes a key pair and exits, serving "
           "nothing; expected it alone, got --ranks too (start the server in a second command)\n"
           and not os.path.exists(os.path.join(d, 'k2.key')), 'keygen with --ranks: %d %r' % (r.returncode, r.stderr))
    r = subprocess.run([NETLOOM, 'serve', '--ranks', '2', '--curve-key', keys['server'], '--listen',
                        'ipc://%s/c0' % d], capture_output=True, text=True)
    expect(r.returncode == 2 and 'expected both --curve-key and --curve-allow' in r.stderr, 'alone: %s' % r.stderr)
    curve_key_files(d, keys)
    # An output that cannot be written is said before a key is made, as
    # for every output (it was "write failed", or a key without its .pub).
    os.mkdir(os.path.join(d, 'k.key.pub'))
    r = subprocess.run([NETLOOM, 'serve', '--curve-keygen', os.path.join(d, 'k.key')], capture_output=True, text=True)
    expect(r.returncode == 2 and r.stderr == 'netloom serve: --curve-keygen: %s/k.key.pub: is a directory; expected a file '
           'name to write\n' % d and not os.path.exists(os.path.join(d, 'k.key')), 'keygen: %r' % r.stderr)
    allow = os.path.join(d, 'allow')
    # alice's .pub twice (2 lines each): one client, counted once, said once.
    open(allow, 'w').write(open(keys['alice'] + '.pub').read() + open(keys['carol'] + '.pub').read()
                           + open(keys['alice'] + '.pub').read())
    script = os.path.join(d, 'curve.py')
    open(script, 'w').write(CURVE_CLIENT)
    s = Server(d, 2, '-s', 'backend=analytic', '--curve-key', keys['server'], '--curve-allow', allow, name='curve')
    srv = keys['server'] + '.pub'
    # Refused first: a key not in the list, then a client without CURVE.
    res = clients([[PY, script, PYDIR, s.ep, '0', srv, keys['mallory'], '1500'],
                   [PY, script, PYDIR, s.ep, '1', srv, 'plain']], d, 'bad')
    for (rc, out), want in zip(res, (REFUSED_KEY, PLAIN_ON_CURVE)):
        expect(rc == 3 and any(out == 'refused: %s\n' % (w % s.ep) for w in want),
               'a refused client got in: %d %s' % (rc, out))
    hello_refusals(d, s.ep, srv, keys)
    res = clients([[PY, script, PYDIR, s.ep, str(r), srv, keys[k], '20000'] for r, k in ((0, 'alice'), (1, 'carol'))],
                  d, 'good')
    for rc, out in res:
        expect(rc == 0 and out.count('got') == 5, 'allowed client: %d %s' % (rc, out))
    rc = s.wait()
    expect(rc == 0, 'server exited %d: %s' % (rc, open(s.err).read()))
    cur = json.load(open(s.json))['live']['curve']
    # mallory three times (curve.py, then hello_refusals' two clients); the
    # others fail before the ZAP handler sees a key.
    expect(cur == {'allowed_keys': 2, 'handshakes_accepted': 2, 'handshakes_refused': 3}, 'curve: %s' % cur)
    dup = "netloom serve: --curve-allow: '%s': 1 duplicate key ignored (the first on line 6); 2 distinct keys allowed\n" % allow
    expect(open(s.err).read().count(dup) == 1, 'duplicate keys: %s' % open(s.err).read())
    # The C client (live_ring with NETLOOM_CURVE_*): same keys, same ring as without CURVE.
    s2 = Server(d, 2, '-s', 'backend=analytic', '--curve-key', keys['server'], '--curve-allow', allow, name='curvec')
    procs = []
    for r, k in ((0, 'alice'), (1, 'carol')):
        env = dict(os.environ, NETLOOM_CURVE_SERVER=srv, NETLOOM_CURVE_KEY=keys[k])
        procs.append(popen([RING, s2.ep, str(r), '3', '64'], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    for p in procs:
        out = p.communicate(timeout=TMO)[0]
        expect(p.returncode == 0 and 'recv ' in out, 'C client over CURVE: %d %s' % (p.returncode, out))
    expect(s2.wait() == 0, 'C session: %s' % open(s2.err).read())
    expect(json.load(open(s2.json))['live']['curve']['handshakes_accepted'] == 2, 'C session: no CURVE')
    # ring.py reads the same variables: C and Python ranks over CURVE.
    s3 = Server(d, 2, '-s', 'backend=analytic', '--curve-key', keys['server'], '--curve-allow', allow, name='curvepy')
    procs = []
    for r, k, cmd in ((0, 'alice', [RING]), (1, 'carol', [PY, os.path.join(PYDIR, 'ring.py')])):
        env = dict(os.environ, NETLOOM_CURVE_SERVER=srv, NETLOOM_CURVE_KEY=keys[k])
        procs.append(popen(cmd + [s3.ep, str(r), '3', '64'], env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    for p in procs:
        out = p.communicate(timeout=TMO)[0]
        expect(p.returncode == 0 and 'recv ' in out, 'ring.py over CURVE: %d %s' % (p.returncode, out))
    expect(s3.wait() == 0, 'ring.py session: %s' % open(s3.err).read())
    expect(json.load(open(s3.json))['live']['curve']['handshakes_accepted'] == 2, 'ring.py session: no CURVE')
    # One of the two variables alone: refused, exit 2 (live_ring connected
    # in plain text with no word; ring.py read neither).
    for var, other in (('NETLOOM_CURVE_SERVER', 'NETLOOM_CURVE_KEY'), ('NETLOOM_CURVE_KEY', 'NETLOOM_CURVE_SERVER')):
        env = dict(os.environ, **{var: srv})
        env.pop(other, None)
        for cmd, prog in (([RING], 'live_ring'), ([PY, os.path.join(PYDIR, 'ring.py')], 'ring.py')):
            r = subprocess.run(cmd + ['ipc://%s/nobody' % d, '0', '2', '16'], env=env, capture_output=True,
                               text=True, timeout=TMO)
            want = '%s: %s set without %s, expected both (CURVE) or neither\n' % (prog, var, other)
            expect(r.returncode == 2 and r.stderr == want and not r.stdout,
                   '%s with %s alone: %d %r' % (prog, var, r.returncode, r.stderr))
    # Z85 keys may hold '=' and '#': take what follows the first '='.
    mal = [l.partition('=')[2].strip() for l in open(keys['mallory'] + '.pub') if l.startswith('public')][0]
    expect('client key %s is not in --curve-allow' % mal in open(s.err).read(), 'log: %s' % open(s.err).read())


FLOOD = r'''
import sys, time
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
ep, role = sys.argv[2], sys.argv[3]
if role == 'idle':      # rank 0: alive but slow to declare its first op
    c = nl.Client(ep, 0)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 3:
        c._send(nl.HEARTBEAT); time.sleep(0.1)
    c.close()
else:                   # rank 1: declares far ahead without ever waiting
    c = nl.Client(ep, 1)
    for i in range(70000):
        c._send(nl.COMPUTE, seq=i, a=1000)
    time.sleep(1)
'''


def case_flood(d):
    """A rank that queues more ops than the server holds is evicted; the
    other finishes."""
    need_pyzmq()
    script = os.path.join(d, 'flood.py')
    open(script, 'w').write(FLOOD)
    s = Server(d, 2, '-s', 'backend=analytic', '--timeout-ms', '20000')
    res = clients([[PY, script, PYDIR, s.ep, 'idle'], [PY, script, PYDIR, s.ep, 'flood']], d, 'f')
    expect(res[0][0] == 0, 'idle rank: %s' % res[0][1])
    expect(s.wait() == 0, 'server: %s' % open(s.err).read())
    ranks = json.load(open(s.json))['live']['ranks']
    expect(ranks[0]['state'] == 'finished', 'rank 0: %s' % ranks[0])
    expect(ranks[1]['state'] == 'evicted' and 'ops ahead' in ranks[1]['what_happened'], 'rank 1: %s' % ranks[1])
    case_deaf(d)


# A client that never reads: rank 0 of job 1 declares COMPUTEs (each
# answered with a DONE) and reads nothing; rank 1, job 2, works normally.
# The server's send queue to rank 0 grew without bound (SNDHWM 0).
DEAF = r'''
import sys, time
sys.path.insert(0, sys.argv[1])
import zmq
import netloom_client as nl
ep, role = sys.argv[2], sys.argv[3]
if role == 'deaf':
    s = zmq.Context().socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0); s.setsockopt(zmq.RCVHWM, 1); s.setsockopt(zmq.RCVBUF, 4096)
    s.connect(ep)
    s.send(nl.HDR.pack(nl.MAGIC, 1, nl.HELLO, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0))
    s.poll(10000); s.recv_multipart()
    for seq in range(40000):
        s.send(nl.HDR.pack(nl.MAGIC, 1, nl.COMPUTE, 0, 0, 0, seq, 0, 0, 0, 0, 1, 0, 0))
    print('sent', flush=True)
    time.sleep(30)  # connected, never reading, until the test ends it
else:
    c = nl.Client(ep, 1, job=2, timeout_ms=20000)
    for it in range(20):
        q = c.isend(1, it, b'x' * 1000)
        st = c.recv(1, it)
        c.wait(q)
        c.compute(1000)
        time.sleep(0.02)
    c.close()
    print('ok')
'''


def case_deaf(d):
    """A client that stops reading is evicted once its send queue is full
    ("stopped reading: N frames queued for it"); the other job finishes.
    Its job, of which no rank finished, fails the session (status 1).
    (Run from case_flood: the meson list of cases is not this file's.)"""
    need_pyzmq()
    script = os.path.join(d, 'deaf.py')
    open(script, 'w').write(DEAF)
    s = Server(d, 2, '-s', 'backend=analytic', '--jobs', '1,1', '--timeout-ms', '20000', name='deaf')
    deaf = popen([PY, script, PYDIR, s.ep, 'deaf'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    (rc, out), = clients([[PY, script, PYDIR, s.ep, 'good']], d, 'deafgood')
    srv = s.wait()
    deaf.kill()
    dout = deaf.communicate()[0]
    expect(rc == 0 and out.strip() == 'ok', 'the other job: %d %s' % (rc, out))
    err = open(s.err).read()
    expect(srv == 1 and 'netloom serve: rank 0 evicted: stopped reading: 1000 frames queued for it (the most the '
           'server queues for a connection)' in err and err.endswith('netloom serve: no rank finished in job 1 (rank '
           '0): rank 0 was evicted (no --record archive written)\n'),
           'server %d: %s (deaf client: %s)' % (srv, err, dout))
    live = json.load(open(s.json))['live']
    expect(live['ranks'][0]['state'] == 'evicted' and
           live['ranks'][0]['what_happened'].startswith('stopped reading: 1000 frames queued for it') and
           live['ranks'][1]['state'] == 'finished', 'JSON: %s' % live['ranks'])
    expect('rank 0: evicted; 0 refused frames; payloads lost to it 0, from it 0; stopped reading: 1000 frames '
           'queued for it' in open(s.out).read(), 'report: %s' % open(s.out).read())


PACED = r'''
import sys, time
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
ep, r = sys.argv[2], int(sys.argv[3])
c = nl.Client(ep, r, timeout_ms=20000)
n = c.size
for it in range(5):
    time.sleep(0.02 * (1 + r))          # real work: measured, not declared
    q = c.isend((r + 1) % n, it, b'p' * 32)
    st = c.recv((r + n - 1) % n, it)
    c.wait(q)
print('t', c.now_ps)
c.close()
'''


def case_paced(d):
    """Paced mode: virtual time follows the wall clock (compute measured),
    the recording replays to the same times, and the lag is reported."""
    need_pyzmq()
    script = os.path.join(d, 'paced.py')
    open(script, 'w').write(PACED)
    t0 = time.time()
    s = Server(d, 3, '-s', 'backend=analytic', '--pace', '1')
    res = clients([[PY, script, PYDIR, s.ep, str(r)] for r in range(3)], d, 'p')
    for rc, out in res:
        expect(rc == 0, 'paced client: %s' % out)
    expect(s.wait() == 0, 'server: %s' % open(s.err).read())
    wall = time.time() - t0
    rep = json.load(open(s.json))
    runtime = rep['results']['runtime']['predicted_s']
    # Rank 2 sleeps 5 x 60 ms, at least 4 of them after virtual time 0
    # (when the last rank connected): the ring cannot finish before 0.24 s
    # of virtual time, nor after the session's wall time.
    expect(0.24 <= runtime <= wall, 'virtual runtime %.3f s, wall %.3f s' % (runtime, wall))
    expect('lag_ns_max' in rep['live'] and rep['live']['pace'] == 1.0, 'no lag report: %s' % rep['live'])
    replay_matches(s, d, ('backend=analytic',))
    r = subprocess.run([NETLOOM, 'serve', '--ranks', '1', '--pace', '0', '--listen', 'ipc://%s/q' % d],
                       capture_output=True, text=True, timeout=TMO)
    expect(r.returncode == 2 and '--pace' in r.stderr, 'pace 0: %s' % r.stderr)
    # Beside a trace that outlasts the ring (0.4 s of virtual time against
    # the ring's few ms): only releases to live ranks are paced, so the
    # paced wall time ends at the last of them, not when the trace's rest,
    # replayed unpaced, is done (it gave 55 ms of wall against 0.4 s of
    # virtual time, matching neither side), and the text says so.
    pingpong = os.path.join(PYDIR, '..', '..', 'traces', 'samples', 'pingpong-2.nlt')
    s, _ = run_ring(d, 2, extra=('-s', 'backend=analytic', '-s', 'topology=torus:k=4', '--pace', '1', '--trace',
                                 pingpong), name='pt')
    rep = json.load(open(s.json))
    live, finish_s = rep['live'], rep['beside_trace']['live']['finish_s']
    expect(rep['results']['runtime']['predicted_s'] > 0.3 and finish_s * 1e9 <= live['paced_wall_ns']
           <= finish_s * 1e9 + live['lag_ns_max'] + 1e6, 'paced beside a trace: live finish %.6f s, %s'
           % (finish_s, live))
    expect("(wall, to the live ranks' last release; the trace's ops after it replayed unpaced)\n"
           in open(s.out).read(), 'paced beside a trace, text: %s' % open(s.out).read())


def bulk_trace(d, k=200, nbytes=65536):
    """A 2-rank trace: rank 0 sends k messages of nbytes to rank 1 from
    virtual time 0 (encoded from its text form)."""
    lines = ['netloom-trace 1', 'ranks 2', 'application "bulk"', 'rank 0', 'init t=0 dur=0']
    lines += ['send t=0 dur=0 peer=1 tag=1 bytes=%d' % nbytes] * k
    lines += ['finalize t=0 dur=0', 'rank 1', 'init t=0 dur=0']
    lines += ['recv t=0 dur=0 peer=0 tag=1 bytes=%d' % nbytes] * k
    lines += ['finalize t=0 dur=0']
    txt, nlt = os.path.join(d, 'bulk.txt'), os.path.join(d, 'bulk.nlt')
    open(txt, 'w').write('\n'.join(lines) + '\n')
    r = subprocess.run([NETLOOM, 'trace', 'encode', txt, nlt], capture_output=True, text=True, timeout=TMO)
    expect(r.returncode == 0, 'trace encode: %s' % r.stderr)
    return nlt


def latencies(s):
    """(src, dst) -> arrival - send of each logged message, ps."""
    out = {}
    for line in open(s.msgs):
        f = line.split()
        out.setdefault((int(f[0]), int(f[1])), []).append(int(f[7]) - int(f[6]))
    return out


def mean(v):
    return sum(v) / len(v)


def beside_evicted(d, nlt):
    """The live side's finish is its last finished rank's, as the session's
    runtime and a job's (jobs_finish): it took the latest end of any live
    rank, so rank 1, evicted after 12 us of compute, made it 12 us (rank 0
    finished at 3 us); with every live rank evicted, 12 us for none
    finished. The trace's side is unchanged."""
    need_pyzmq()
    script = os.path.join(d, 'jobfin.py')
    open(script, 'w').write(JOBFIN)
    for name, modes in (('bsome', ('alone', 'silent')), ('bnone', ('silent', 'silent'))):
        s = Server(d, 2, '-s', 'backend=analytic', '--trace', nlt, '--heartbeat-ms', '200', '--timeout-ms', '1000',
                   name=name)
        clients([[PY, script, PYDIR, s.ep, str(r), '1', modes[r]] for r in range(2)], d, name)
        rc = s.wait()
        rep, text = json.load(open(s.json)), open(s.out).read()
        b, ranks = rep['beside_trace'], rep['results']['ranks']
        fin = ranks[0]['finish_s'] if name == 'bsome' else None
        expect(rc == (0 if fin else 1) and [x['state'] for x in rep['live']['ranks']] == [
            'finished' if m == 'alone' else 'evicted' for m in modes], '%s: server %d, %s' % (name, rc, text))
        expect(b['live']['finish_s'] == fin and (fin is None or fin < 12e-6)
               and b['trace']['finish_s'] == max(x['finish_s'] for x in ranks[2:]) > 0,
               '%s: beside_trace %s' % (name, b))
        live = [l for l in text.splitlines() if l.startswith('    live  ranks 0..1: finish ')]
        expect(len(live) == 1 and live[0].split(',')[0].endswith('finish %.9f s' % fin if fin else 'finish none finished'),
               '%s: text %s' % (name, text))


def case_beside_trace(d):
    """A live ring of 6 ranks beside a replayed trace on the same flit
    network (torus:k=8, the trace on endpoints 6 and 7 by default): the
    ring's 5 -> 0 messages take the +x channels of routers 5, 6 and 7,
    and the trace's 6 -> 7 stream shares router 6's, so the ring's
    latencies rise; two runs with the trace give the same bytes, and the
    report keeps the live ranks' figures apart from the trace's."""
    nlt = bulk_trace(d)
    net = ('-s', 'backend=flit', '-s', 'topology=torus:k=8')
    alone, _ = run_ring(d, 6, iters=30, nbytes=16384, extra=net, name='alone')
    runs = [run_ring(d, 6, iters=30, nbytes=16384, extra=net + ('--trace', nlt), name='with%d' % i)
            for i in range(2)]
    (w, res) = runs[0]
    client_times_match(w, res)
    la, lw = latencies(alone), latencies(w)
    expect(sorted(la) == sorted(lw) and len(la[(5, 0)]) == 31, 'message pairs differ: %s %s' % (la, lw))
    all_a = mean([x for v in la.values() for x in v])
    all_w = mean([x for v in lw.values() for x in v])
    expect(all_w > 1.1 * all_a, 'ring latency mean %.0f ps beside the trace, %.0f ps alone' % (all_w, all_a))
    expect(mean(lw[(5, 0)]) > 1.5 * mean(la[(5, 0)]),
           '5 -> 0 latency %.0f ps beside the trace, %.0f ps alone' % (mean(lw[(5, 0)]), mean(la[(5, 0)])))
    # Deterministic across two runs: message log, results and client outputs.
    w2, res2 = runs[1]
    expect(open(w.msgs).read() == open(w2.msgs).read(), 'message logs of two runs beside the trace differ')
    d1, d2 = json.load(open(w.json)), json.load(open(w2.json))
    expect(json.dumps(d1['results'], sort_keys=True) == json.dumps(d2['results'], sort_keys=True),
           'results of two runs beside the trace differ')
    expect([o for _, o in res] == [o for _, o in res2], 'client outputs of two runs differ')
    # The report: live and trace figures apart.
    b = d1.get('beside_trace')
    expect(b and b['live']['ranks'] == 6 and b['trace']['first_rank'] == 6 and b['trace']['ranks'] == 2,
           'beside_trace: %s' % b)
    expect(b['trace']['messages'] == 200 and b['live']['messages'] == sum(len(v) for v in lw.values()),
           'messages per side: %s' % b)
    expect(abs(b['live']['latency_ps']['mean'] - all_w) < 1, 'live mean %s, log %.0f' % (b['live'], all_w))
    out = open(w.out).read()
    expect('beside trace' in out and 'live  ranks 0..5' in out and 'trace ranks 6..7' in out, 'text: %s' % out)
    # Two latencies, each named (they differed with no word why): the
    # sides' from the send posted, the all-ranks line the replay's.
    expect('latency (send posted to arrival) mean' in out and
           'message latency (all ranks, hand-off to the network to arrival)' in out, 'latency labels: %s' % out)
    expect(b['live']['finish_s'] is not None and b['trace']['finish_s'] is not None, 'finished sides: %s' % b)
    expect('beside_trace' not in json.load(open(alone.json)), 'beside_trace without --trace')
    expect(b['endpoints'] == [6, 7] and b['placement'] == 'linear', 'default placement: %s' % b)
    # The trace's path is any bytes: in the report with U+FFFD
    # (docs/layout.md), where json_pack refused it and serve ended in
    # 'out of memory' with no report.
    odd = os.path.join(d, 'bulk\udcff.nlt')  # the byte 0xff
    open(odd, 'wb').write(open(nlt, 'rb').read())
    u, _ = run_ring(d, 6, iters=2, nbytes=64, extra=net + ('--trace', odd), name='nonutf8')
    path = json.load(open(u.json))['beside_trace']['path']
    expect(path.endswith('bulk\ufffd.nlt'), 'beside_trace path of a non-UTF-8 name: %a' % path)
    beside_evicted(d, nlt)
    # No live rank came, the trace ran to its end: the line says the live
    # ranks did not finish (it said "no rank finished", above a report
    # showing the trace's runtime).
    for n, said in ((2, 'all 2 live ranks were'), (1, 'rank 0 was')):
        s = Server(d, n, '-s', 'backend=analytic', '--trace', nlt, '--connect-timeout-ms', '300', name='nobody%d' % n)
        rc = s.wait()
        err = open(s.err).read().splitlines()
        expect(rc == 1 and err[-1] == 'netloom serve: no live rank finished: %s evicted; the trace beside ran alone '
               '(no --record archive written)' % said, 'nobody beside a trace: rc %d, %s' % (rc, err))
        b = json.load(open(s.json))['beside_trace']
        expect(b['trace']['finish_s'] is not None and b['live']['finish_s'] is None, 'beside_trace: %s' % b)
    # A trace beside that deadlocks (both ranks send 1 MiB before
    # receiving) before reaching damage in it (rank 0's frame claims one op
    # more than it holds): the damage is said, in trace verify's words,
    # status 2, no JSON, not the deadlock (status 1), as by netloom replay.
    txt, dl = os.path.join(d, 'dl.txt'), os.path.join(d, 'dl.nlt')
    with open(txt, 'w') as f:
        f.write('netloom-trace 2\nranks 2\n')
        for r in (0, 1):
            f.write('rank %d\ninit t=0 dur=0\n' % r)
            f.write('send t=0 dur=0 peer=%d tag=7 bytes=1048576\nrecv t=0 dur=0 peer=%d tag=7 bytes=1048576\n'
                    % (1 - r, 1 - r))
            f.write('finalize t=0 dur=0\n')
    r = subprocess.run([NETLOOM, 'trace', 'encode', txt, dl], capture_output=True, text=True, timeout=TMO)
    expect(r.returncode == 0, 'encode dl.txt: %s' % r.stderr)
    b = bytearray(open(dl, 'rb').read())
    off = 64 + struct.unpack_from('<Q', b, 32)[0]
    b[off + 1] += 1
    bad = os.path.join(d, 'dl_bad.nlt')
    open(bad, 'wb').write(b)
    v = subprocess.run([NETLOOM, 'trace', 'verify', bad], capture_output=True, text=True, timeout=TMO)
    why = v.stderr.strip().replace('netloom trace verify: FAILED: ', '')
    for t, want_rc, want in ((dl, 1, None), (bad, 2, 'netloom serve: ' + why)):
        s = Server(d, 1, '-s', 'backend=analytic', '--trace', t, '--connect-timeout-ms', '200',
                   name='dlb%d' % want_rc)
        rc = s.wait()
        err = open(s.err).read().splitlines()
        expect(rc == want_rc and (want is None or (err[-1] == want and not os.path.exists(s.json))),
               'deadlocking trace beside (%s): rc %d, %s' % (os.path.basename(t), rc, err[-3:]))
    # Placed by the usual keys, on the endpoints the live ranks leave free.
    placed = ('-s', 'backend=flit', '-s', 'topology=torus:k=16', '-s', 'placement=random-node',
              '-s', 'placement_seed=3', '--trace', nlt)
    eps = []
    for i in range(2):
        p, _ = run_ring(d, 6, iters=2, nbytes=64, extra=placed, name='placed%d' % i)
        pb = json.load(open(p.json))['beside_trace']
        expect(pb['placement'] == 'random-node' and len(set(pb['endpoints'])) == 2 and
               all(6 <= e < 16 for e in pb['endpoints']), 'random-node placement: %s' % pb)
        eps.append(pb['endpoints'])
    expect(eps[0] == eps[1], 'placement differs between runs: %s' % eps)
    # Under placement = map the file gives each trace rank its endpoint:
    # the report names the file (the text said only "placement map"), the
    # JSON has it beside the policy.
    tmap = os.path.join(d, 'trace.map')
    open(tmap, 'w').write('0 9\n1 12\n')
    p, _ = run_ring(d, 6, iters=2, nbytes=64, name='mapped',
                    extra=('-s', 'backend=flit', '-s', 'topology=torus:k=16', '-s', 'placement=map',
                           '-s', 'placement_map=' + tmap, '--trace', nlt))
    pb = json.load(open(p.json))['beside_trace']
    expect(pb['placement'] == 'map' and pb.get('placement_map') == tmap and pb['endpoints'] == [9, 12],
           'map placement: %s' % pb)
    expect('), placement map (file %s):\n' % tmap in open(p.out).read(), 'map placement text: %s' % open(p.out).read())
    expect('placement_map' not in json.load(open(w.json))['beside_trace'], 'placement_map under linear: %s' % b)
    r = subprocess.run([NETLOOM, 'serve', '--ranks', '2', '--listen', 'ipc://%s/pl' % d, '--trace', nlt,
                        '-s', 'placement=nope'] + list(net), capture_output=True, text=True, timeout=TMO)
    expect(r.returncode == 2 and "-s: key 'placement': value 'nope': expected one of linear, contiguous" in r.stderr and r.stderr.count('\n') == 1,
           'bad placement: %d %s' % (r.returncode, r.stderr))
    # A map beside another placement was never read (the trace placed
    # linear, exit 0): refused, naming the key, its value and the policy.
    r = subprocess.run([NETLOOM, 'serve', '--ranks', '2', '--listen', 'ipc://%s/pm' % d, '--trace', nlt,
                        '-s', 'placement=random-node', '-s', 'placement_map=any.map'] + list(net),
                       capture_output=True, text=True, timeout=TMO)
    expect(r.returncode == 2 and r.stderr == "netloom serve: -s: key 'placement_map': value 'any.map': only placement = "
           "map reads it, and the placement in force is random-node; expected placement = map with it, or "
           "placement_map unset\n", 'placement_map unread: %d %s' % (r.returncode, r.stderr))
    # Too few endpoints for ranks + trace: a one-line error naming the key.
    r = subprocess.run([NETLOOM, 'serve', '--ranks', '7', '--listen', 'ipc://%s/few' % d, '--trace', nlt] +
                       list(net), capture_output=True, text=True, timeout=TMO)
    expect(r.returncode == 2 and "key 'topology'" in r.stderr and 'needs 9' in r.stderr and
           r.stderr.count('\n') == 1, 'too few endpoints: %d %s' % (r.returncode, r.stderr))
    r = subprocess.run([NETLOOM, 'serve', '--ranks', '2', '--listen', 'ipc://%s/nt' % d, '--trace',
                        os.path.join(d, 'missing.nlt')], capture_output=True, text=True, timeout=TMO)
    expect(r.returncode == 2 and 'missing.nlt' in r.stderr and r.stderr.count('\n') == 1,
           'missing trace: %d %s' % (r.returncode, r.stderr))
    # Named with its option, as every input and output is (a directory
    # said "netloom: DIR: not a regular file"), and said as replay says it
    # (its OTF2 hint aside: serve reads only archives).
    r = subprocess.run([NETLOOM, 'serve', '--ranks', '2', '--listen', 'ipc://%s/td' % d, '--trace', d],
                       capture_output=True, text=True, timeout=TMO)
    expect(r.returncode == 2 and r.stderr == 'netloom serve: --trace: %s: is a directory, not a trace file\n' % d,
           'trace a directory: %d %s' % (r.returncode, r.stderr))
    beside_script(d)


def beside_script(d):
    """adapters/examples/beside_trace.sh: prints both runs' latencies; a
    server that fails to start (it looped for ever waiting for the socket)
    or a failing rank (its status was ignored) end it with one line, exit
    1; its temporary directory is removed in every case, also on SIGTERM."""
    script = os.path.join(PYDIR, '..', 'examples', 'beside_trace.sh')
    build = os.path.dirname(os.path.abspath(NETLOOM))
    tmp = os.path.join(d, 'bt')
    os.mkdir(tmp)
    env = dict(os.environ, TMPDIR=tmp)

    def run(*args):
        try:
            return subprocess.run(['sh', script] + list(args), capture_output=True, text=True, env=env, timeout=TMO)
        except subprocess.TimeoutExpired:
            fail('beside_trace.sh %s hung' % ' '.join(args))
    r = run(build)
    expect(r.returncode == 0 and r.stdout.startswith('ring alone:         190 ring messages')
           and 'ring beside trace:  190 ring messages' in r.stdout, 'script: %d %s %s'
           % (r.returncode, r.stdout, r.stderr))
    r = run(build, os.path.join(d, 'missing.nlt'))
    expect(r.returncode == 1 and r.stderr.splitlines()[-1] ==
           'beside_trace.sh: beside: netloom serve exited with status 2 before listening',
           'script, missing trace: %d %s' % (r.returncode, r.stderr))
    # A build directory without netloom: one line saying so (it was the
    # shell's "not found", then "netloom trace encode failed").
    r = run(os.path.join(d, 'nobuild'))
    expect(r.returncode == 1 and r.stderr == "beside_trace.sh: build directory '%s' has no netloom; expected "
           "BUILD_DIR where ninja built netloom\n" % os.path.join(d, 'nobuild'),
           'script, no build: %d %r' % (r.returncode, r.stderr))
    fake = os.path.join(d, 'fakebuild')  # the real netloom, a live_ring that fails (or waits)
    os.makedirs(os.path.join(fake, 'adapters'))
    os.symlink(os.path.abspath(NETLOOM), os.path.join(fake, 'netloom'))
    ring = os.path.join(fake, 'adapters', 'live_ring')
    open(ring, 'w').write('#!/bin/sh\nexit 3\n')
    os.chmod(ring, 0o755)
    r = run(fake)
    expect(r.returncode == 1 and r.stderr.splitlines()[-1] == 'beside_trace.sh: alone: rank 0 exited with status 3',
           'script, failing rank: %d %s' % (r.returncode, r.stderr))
    expect(os.listdir(tmp) == [], 'script left %s' % os.listdir(tmp))
    open(ring, 'w').write('#!/bin/sh\nexec sleep 20\n')
    p = popen(['sh', script, fake], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1)
    expect(len(os.listdir(tmp)) == 1, 'script running: %s' % os.listdir(tmp))
    p.terminate()
    try:
        rc = p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        fail('beside_trace.sh ignored SIGTERM')
    expect(rc != 0 and os.listdir(tmp) == [], 'script on SIGTERM: %d, left %s' % (rc, os.listdir(tmp)))


def case_paced_behind(d):
    """Paced mode with a server that cannot keep up: the flit model of a
    network loaded by a replayed trace runs far slower than real time, so
    releases come late, and the report says how far (max, p99) and for how
    long (time behind); with --max-lag-ms the session stops with a one-line
    error that the clients get too, and writes the report of a stopped
    session: each rank's figures up to the stop, marked partial, the COMPUTE
    its client declared in the operations they count."""
    nlt = bulk_trace(d)
    slow = ('-s', 'backend=flit', '-s', 'topology=torus:k=8', '--trace', nlt, '--pace', '1')
    s, _ = run_ring(d, 6, iters=30, nbytes=16384, extra=slow, name='slow')
    live = json.load(open(s.json))['live']
    expect(live['behind_threshold_ns'] == 1000000, 'threshold: %s' % live)
    expect(live['lag_ns_max'] > 1000000 and live['releases_late_over_1ms'] > 0, 'no lag: %s' % live)
    expect(0 < live['behind_ns'] <= live['paced_wall_ns'], 'time behind: %s' % live)
    expect(live['lag_ns_p99'] <= live['lag_ns_max'], 'p99 over max: %s' % live)
    out = open(s.out).read()
    expect('time behind (a release over 1 ms late)' in out, 'text: %s' % out)
    # The hard limit: a clear error, the clients told, no archive. Ten
    # times the bulk traffic: the run above may lag only a few ms on a
    # fast build (clang -O3 on an idle CI machine stayed under 5 ms and
    # finished), this one stays loaded ten times longer and lags far past
    # 5 ms; it stops there, so it costs no more time.
    heavy = os.path.join(d, 'heavy')
    os.makedirs(heavy, exist_ok=True)
    hard = ('-s', 'backend=flit', '-s', 'topology=torus:k=8', '--trace', bulk_trace(heavy, k=2000), '--pace', '1')
    t0 = time.time()
    h = Server(d, 6, *(hard + ('--max-lag-ms', '5')), name='hard')
    res = clients([[RING, h.ep, str(r), '30', '16384'] for r in range(6)], d, 'hard')
    rc = h.wait()
    err = open(h.err).read().strip().splitlines()
    expect(rc != 0 and len(err) >= 1 and 'over --max-lag-ms 5' in err[-1] and 'behind the wall clock' in err[-1],
           'hard limit: rc %d, %s' % (rc, err))
    expect(all(c != 0 and 'session stopped' in o for c, o in res), 'clients: %s' % res)
    expect(time.time() - t0 < 15, 'clients were not told (they waited for their timeout)')
    expect(not os.path.exists(h.rec), 'a stopped session left an archive')
    check_lag_report('hard', h, err[-1], 6)
    # The same stop with known work: each rank's compute is the COMPUTE its
    # client declared in the operations the report counts.
    need_pyzmq()
    script = os.path.join(d, 'lagged.py')
    open(script, 'w').write(LAGGED)
    k = Server(d, 3, *hard, '--max-lag-ms', '5', name='known')
    cl = [popen([PY, script, PYDIR, k.ep, str(r), json.dumps(LAGGED_OPS[r])], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True) for r in range(2)]
    for r, c in enumerate(cl):
        line = c.stdout.readline()
        expect(line.strip() == 'declared', 'client %d did not declare its ops: %s' % (r, line))
    time.sleep(0.3)  # the server has read them: all before virtual time 0
    cl.append(popen([PY, script, PYDIR, k.ep, '2', json.dumps(LAGGED_OPS[2])], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True))
    rc = k.wait()
    err = open(k.err).read().strip().splitlines()
    expect(rc == 1 and len(err) >= 1 and 'over --max-lag-ms 5' in err[-1], 'known: rc %d, %s' % (rc, err))
    for r, c in enumerate(cl):
        try:
            out = c.communicate(timeout=10)[0]
        except subprocess.TimeoutExpired:
            c.kill()
            fail('known: client %d was not told (still waiting)' % r)
        expect('server: session stopped: ' + err[-1][len('netloom serve: '):] in out, 'known: client %d: %s' % (r, out))
    ranks = check_lag_report('known', k, err[-1], 3)
    for r in (0, 1):
        x, ops = ranks[r], LAGGED_OPS[r]
        declared = sum(op[1] for op in ops[:x['ops']] if op[0] == 'compute')
        expect(1 <= x['ops'] < len(ops) and abs(x['compute_s'] - declared * 1e-12) < 1e-15,
               'known: rank %d: %d ops, compute %.12f s, its client declared %.12f s in them: %s'
               % (r, x['ops'], x['compute_s'], declared * 1e-12, x))


# What each rank of LAGGED declares (COMPUTE in ps): ranks 0 and 1 all of
# it before rank 2 connects; every last receive waits for a message nobody
# sends.
LAGGED_OPS = (
    (('compute', 20000000), ('isend', 1, 7), ('compute', 30000000), ('isend', 1, 8), ('compute', 10000000),
     ('recv', 1, 99)),
    (('compute', 10000000), ('irecv', 0, 7), ('wait',), ('compute', 40000000), ('irecv', 0, 8), ('wait',),
     ('compute', 10000000), ('recv', 0, 99)),
    (('recv', 0, 99),),
)
LAGGED = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
rank = int(sys.argv[3])
c = nl.Client(sys.argv[2], rank, timeout_ms=30000)
# Declared without waiting for any reply (lean: no DONE for COMPUTE and
# non-blocking posts; WAIT and RECV sent, not awaited), so ranks 0 and 1
# have sent all of it when rank 2 connects: paced mode measures compute
# only for ops that come after virtual time 0.
req = seq = None
for op in json.loads(sys.argv[4]):
    if op[0] == 'compute':
        c.compute(op[1])
    elif op[0] == 'isend':
        c.isend(op[1], op[2], b'x' * 1024)
    elif op[0] == 'irecv':
        req = c.irecv(op[1], op[2], 1024)
    elif op[0] == 'wait':
        c._op(nl.WAIT, aux=req)
    else:
        seq = c._op(nl.RECV, peer=op[1], tag=op[2], a=64)
        c._pending[seq] = None
print('declared', flush=True)
try:
    c._await(seq)
    print('got a message')
except nl.NetloomError as e:
    print(e)
"""


def check_lag_report(name, s, line, n):
    """A session stopped by --max-lag-ms writes the report of a stopped
    session (docs/live.md "Stopping"): marked stopped by max-lag with the
    error line, each live rank's figures partial and consistent (compute +
    comm + wait = the time they count up to, the stop or earlier), the text
    table too. Returns the live ranks' JSON results."""
    expect(os.path.exists(s.json), '%s: no --json report after a max-lag stop' % name)
    doc = json.load(open(s.json))
    live, res = doc['live'], doc['results']
    reason = line[len('netloom serve: '):]
    expect(live['stopped'] is True and live.get('stopped_by') == 'max-lag' and live['stop_reason'] == reason,
           '%s: JSON live: stopped %s, stopped_by %s, stop_reason %s' % (
               name, live['stopped'], live.get('stopped_by'), live.get('stop_reason')))
    expect(res.get('partial') is True and res['runtime']['predicted_s'] is None
           and res['runtime']['stopped_at_s'] > 0, '%s: results: %s' % (name, res['runtime']))
    ranks = res['ranks'][:n]
    for r, x in enumerate(ranks):
        expect(x['finish_s'] == (x['until_s'] if x['finished'] else None)
               and x['until_s'] <= res['runtime']['stopped_at_s']
               and abs(x['compute_s'] + x['comm_s'] + x['wait_s'] - x['until_s']) < 1e-15,
               '%s: rank %d: %s' % (name, r, x))
    text = open(s.out).read()
    expect('stopped at virtual time %.9f s (partial)' % res['runtime']['stopped_at_s'] in text
           and '  session stopped: %s (per-rank results partial, up to the stop)' % reason in text,
           '%s: text report: %s' % (name, text))
    live_ranks = set(map(str, range(n)))
    rows = [l.split() for l in text.splitlines() if l.startswith('  ') and l.split()[0] in live_ranks]
    expect(len(rows) == n and all(row[4] == '%.9f' % x['until_s'] for row, x in zip(rows, ranks)),
           '%s: rows: %s' % (name, rows))
    return ranks


LEAN = r'''
import sys, time
sys.path.insert(0, sys.argv[1])
import zmq
import netloom_client as nl
ep, rank, flags = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if rank == 1:
    c = nl.Client(ep, 1)
    for it in range(4):
        st = c.recv(0, it)
    c.close()
    sys.exit(0)
s = zmq.Context().socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 1000); s.connect(ep)
def hdr(t, seq=0, peer=0, tag=0, aux=0, a=0, fl=0):
    return nl.HDR.pack(nl.MAGIC, 1, t, fl, 0, 0, seq, peer, tag, aux, 0, a, 0, 0)
s.send(hdr(nl.HELLO, aux=1, fl=flags))
print('welcome flags', nl.HDR.unpack(s.recv_multipart()[0])[3])
# compute, three isends, a blocking send, a waitall, bye: the DONEs in order
s.send(hdr(nl.COMPUTE, seq=0, a=1000000))
for it in range(3):
    s.send_multipart([hdr(nl.SEND, seq=1 + it, peer=1, tag=it, fl=1), b'x' * 8])
s.send_multipart([hdr(nl.SEND, seq=4, peer=1, tag=3), b'y' * 8])
s.send_multipart([hdr(nl.WAITALL, seq=5), bytes([1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0])])
s.send(hdr(nl.BYE, seq=6))
done = []
while not done or done[-1] != 6:
    if not s.poll(10000):
        print('timeout, DONE so far', done); sys.exit(1)
    h = nl.HDR.unpack(s.recv_multipart()[0])
    if h[2] == nl.DONE:
        done.append(h[6])
print('done', ' '.join(map(str, done)))
'''


def case_lean(d):
    """HELLO's LEAN flag: the server sends no DONE for non-blocking posts
    and COMPUTE (the next blocking op's DONE covers them), and in lock-step
    mode none for a blocking SEND either (WELCOME says so with SEND_NOWAIT);
    without it, every op gets its DONE. Same virtual times either way; in
    paced mode a blocking SEND keeps its DONE."""
    need_pyzmq()
    script = os.path.join(d, 'lean.py')
    open(script, 'w').write(LEAN)
    outs = {}
    for flags, paced in ((0, ()), (2, ()), (2, ('--pace', '1'))):
        name = 'lean%d%s' % (flags, 'p' if paced else '')
        s = Server(d, 2, '-s', 'backend=analytic', *paced, name=name)
        res = clients([[PY, script, PYDIR, s.ep, str(r), str(flags)] for r in range(2)], d, name)
        for rc, out in res:
            expect(rc == 0, 'lean client (%s): %s' % (name, out))
        expect(s.wait() == 0, 'server: %s' % open(s.err).read())
        outs[name] = (res[0][1].strip().splitlines(), open(s.msgs).read())
    expect(outs['lean0'][0] == ['welcome flags 0', 'done 0 1 2 3 4 5 6'], 'without LEAN: %s' % outs['lean0'][0])
    expect(outs['lean2'][0] == ['welcome flags 4', 'done 5 6'], 'with LEAN: %s' % outs['lean2'][0])
    expect(outs['lean2p'][0] == ['welcome flags 0', 'done 4 5 6'], 'with LEAN, paced: %s' % outs['lean2p'][0])
    expect(outs['lean0'][1] == outs['lean2'][1] and outs['lean0'][1].count('\n') == 4,
           'virtual times differ: %s' % (outs,))


PROTO = r"""
import struct
import sys
sys.path.insert(0, sys.argv[1])
import zmq
import netloom_client as nl
ep = sys.argv[2]
ctx = zmq.Context()
def sock():
    s = ctx.socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 1000); s.connect(ep); return s
def hdr(t, rank, seq=0, peer=0, tag=0, aux=0, a=0, fl=0):
    return nl.HDR.pack(nl.MAGIC, 1, t, fl, 0, rank, seq, peer, tag, aux, 0, a, 0, 0)
def reply(s):
    if not s.poll(10000):
        print('timeout'); sys.exit(1)
    p = s.recv_multipart()
    return nl.HDR.unpack(p[0]), (p[1].decode() if len(p) > 1 and nl.HDR.unpack(p[0])[2] == nl.ERROR else b'')
a, b = sock(), sock()
a.send(hdr(nl.HELLO, 0, aux=1)); b.send(hdr(nl.HELLO, 1, aux=1))
print('welcome', reply(a)[0][2], reply(b)[0][2])
# Rank 1: three irecvs and their WAITALL, which ends past 2^62 - 2^56 ps
# (the messages are sent at that bound), then 2^61 ps of compute: any op
# starting past the bound is refused when the engine reaches it.
b.send(hdr(nl.RECV, 1, 0, peer=0, tag=0, a=64, fl=nl.NONBLOCKING))
b.send(hdr(nl.RECV, 1, 1, peer=0, tag=1, a=64, fl=nl.NONBLOCKING))
b.send(hdr(nl.RECV, 1, 2, peer=0, tag=2, a=64, fl=nl.NONBLOCKING))
b.send_multipart([hdr(nl.WAITALL, 1, 3), bytes([0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0])])
b.send(hdr(nl.COMPUTE, 1, 4, a=2**61))
b.send(hdr(nl.BYE, 1, 5))
T62 = 2**62 - 2**56  # the bound on a rank's time (the rest is the network's)
# Rank 0: (frames, refused?) in order; a refused frame leaves its seq free.
steps = [
    ([hdr(nl.HELLO, 0, aux=1, fl=nl.LEAN)], 'hello again'),
    ([hdr(nl.COMPUTE, 0, 0, a=2**61)], None),
    ([hdr(nl.COMPUTE, 0, 1, a=2**63)], 'compute 2^63'),
    ([hdr(nl.COMPUTE, 0, 1, a=2**64 - 1)], 'compute 2^64-1'),
    ([hdr(nl.COMPUTE, 0, 1, a=2**61 - 2**56 + 1)], 'compute 1 past the bound'),
    ([hdr(nl.COMPUTE, 0, 1, a=2**61 - 2**56)], None),
    ([hdr(nl.COMPUTE, 0, 2, a=1)], 'compute past 2^62'),
    ([hdr(nl.WAIT, 0, 2, aux=0)], 'wait on a compute'),
    ([hdr(nl.SEND, 0, 2, peer=1, tag=-3), b'x'], 'send tag -3'),
    ([hdr(nl.SEND, 0, 2, peer=-1, tag=0), b'x'], 'send peer -1'),
    ([hdr(nl.RECV, 0, 2, peer=1, tag=-2, a=8)], 'recv tag -2'),
    ([hdr(nl.SEND, 0, 2, peer=1, tag=0), b'p' * 4], None),
    ([hdr(nl.WAIT, 0, 3, aux=2)], 'wait on a blocking send'),
    ([hdr(nl.SEND, 0, 3, peer=1, tag=1, fl=nl.NONBLOCKING), b'q' * 4], None),
    ([hdr(nl.WAIT, 0, 4, aux=3)], None),
    ([hdr(nl.WAIT, 0, 5, aux=3)], 'wait twice'),
    ([hdr(nl.SEND, 0, 5, peer=1, tag=2, fl=nl.NONBLOCKING), b'r' * 4], None),
    ([hdr(nl.WAITALL, 0, 6), bytes([5, 0, 0, 0, 5, 0, 0, 0])], 'waitall twice the same'),
    ([hdr(nl.WAITALL, 0, 6), bytes([3, 0, 0, 0])], 'waitall on a waited request'),
    ([hdr(nl.WAITALL, 0, 6), bytes([5, 0, 0, 0])], None),
    ([hdr(nl.BYE, 0, 7)], None),
]
done = []
for frames, what in steps:
    a.send_multipart(frames)
    while what:  # its ERROR (DONEs of earlier ops may come first)
        h, text = reply(a)
        if h[2] == nl.DONE:
            done.append((h[6], h[11])); continue
        print('refused %s: %d %s' % (what, h[8], text)); break
while not done or done[-1][0] != 7:
    h, text = reply(a)
    if h[2] != nl.DONE:
        print('rank 0 unexpected', h[2], h[8], text); sys.exit(1)
    done.append((h[6], h[11]))
print('rank 0 done', ' '.join(str(q) for q, _ in done))
print('rank 0 last time', done[-1][1] - T62)
got = []
while True:
    h, text = reply(b)
    if h[2] == nl.DELIVER:
        got.append('deliver %d t_sent-2^62 %d' % (h[8], h[11] - T62))
    elif h[2] == nl.ERROR:
        got.append('error %d about %d: %s' % (h[8], h[5], text))
        if h[8] == nl.EEVICTED:
            break
print('rank 1', ' | '.join(got))
"""


# Three jobs of two ranks, cpu_factor 2: job 1 exchanges a message and
# finishes; in job 2 rank 2 declares 2^61 ps of compute (2^62 after
# cpu_factor, past the bound); in job 3 rank 4 computes to the bound
# exactly and sends, so rank 5's receive ends past it and its reply is
# refused. Each offender gets ERROR 1 and is evicted; the session reports.
BOUND = r"""
import sys, threading
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
ep = sys.argv[2]
B = (2**62 - 2**56) // 2  # 2^62 - 2^56 ps after cpu_factor 2
res = {}
def run(i):
    c = nl.Client(ep, i, job=i // 2 + 1, timeout_ms=20000)
    try:
        if i < 2:
            c.compute(1000); c.send(1 - i, 0, b'x'); c.recv(1 - i, 0, 8)
        elif i == 2: c.compute(2**61); c.send(3, 0, b'x')
        elif i == 3: c.recv(2, 0, 8)
        elif i == 4: c.compute(B); c.send(5, 0, b'x'); c.recv(5, 1, 8)
        else: c.recv(4, 0, 8); c.send(4, 1, b'y')
        c.close(); res[i] = 'ok'
    except nl.NetloomError as e:
        res[i] = 'error %s' % e
ts = [threading.Thread(target=run, args=(i,)) for i in range(6)]
[t.start() for t in ts]; [t.join() for t in ts]
for i in range(6):
    print('rank %d %s' % (i, res[i]))
"""


# The start of a raw-protocol client (argv: the Python client's folder, the
# endpoint): DEALER sockets, a header packer (HELLO with aux 1) and a reply
# reader that fails the case after 10 s of silence.
RAW_DEALER = r"""
import struct
import sys
sys.path.insert(0, sys.argv[1])
import zmq
import netloom_client as nl
ctx = zmq.Context()
def sock():
    s = ctx.socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 1000); s.connect(sys.argv[2]); return s
def hdr(t, rank, seq=0, peer=0, tag=0, a=0):
    return nl.HDR.pack(nl.MAGIC, 1, t, 0, 0, rank, seq, peer, tag, 1 if t == nl.HELLO else 0, 0, a, 0, 0)
def reply(s):
    if not s.poll(10000):
        print('timeout'); sys.exit(1)
    p = s.recv_multipart()
    return nl.HDR.unpack(p[0]), (p[1].decode() if len(p) > 1 else '')
"""


# Ops after BYE: rank 0 blocks in a RECV, then declares BYE and two more
# ops (the BYE is queued, not yet handed over); they were taken, then
# dropped with no word. Rank 1 sends only once rank 0 got both ERRORs.
AFTERBYE = RAW_DEALER + r"""
a, b = sock(), sock()
a.send(hdr(nl.HELLO, 0)); b.send(hdr(nl.HELLO, 1)); reply(a); reply(b)
a.send(hdr(nl.RECV, 0, 0, peer=1, tag=1, a=8))
a.send(hdr(nl.BYE, 0, 1))
a.send_multipart([hdr(nl.SEND, 0, 2, peer=1, tag=2), b'after-bye'])
a.send(hdr(nl.COMPUTE, 0, 3, a=5))
for _ in range(2):
    h, text = reply(a)
    print('rank 0 got', h[2], h[8], text)
b.send_multipart([hdr(nl.SEND, 1, 0, peer=0, tag=1), b'ping'])
b.send(hdr(nl.BYE, 1, 1))
for s, r in ((a, 0), (b, 1)):
    while True:
        h, text = reply(s)
        if h[2] == nl.ERROR:
            print('rank %d unexpected error %d %s' % (r, h[8], text)); sys.exit(1)
        if h[2] == nl.DONE and h[6] == 1:
            break
print('both done')
"""


# Frames after a rank's end: rank 0 finishes (BYE), rank 1 is silent until
# evicted, rank 2 heartbeats throughout and ends the session. Each then
# sends a HEARTBEAT (rank 1 a COMPUTE too): ERROR 9, saying the rank's
# state, not as if that frame were refused for the eviction's reason.
AFTEREND = RAW_DEALER + r"""
import time
def until(s, keep, kind, about, what):
    # s's next frame of type kind (an ERROR about rank `about`); the
    # (rank, socket) pairs of keep send a HEARTBEAT every 100 ms meanwhile.
    t0 = time.time()
    while time.time() - t0 < 20:
        for r, k in keep:
            k.send(hdr(nl.HEARTBEAT, r))
        if s.poll(100):
            h, text = reply(s)
            if h[2] == kind and (kind != nl.ERROR or h[5] == about):
                return '%d about %d: %s' % (h[8], h[5], text)
    print('timeout waiting for', what); sys.exit(1)
a, b, c = sock(), sock(), sock()
for r, s in enumerate((a, b, c)):
    s.send(hdr(nl.HELLO, r))
    until(s, [], nl.WELCOME, r, 'WELCOME')
a.send(hdr(nl.BYE, 0, 0))
until(a, [(0, a), (2, c)], nl.DONE, 0, "rank 0's BYE")
a.send(hdr(nl.HEARTBEAT, 0))
print('rank 0 heartbeat after BYE:', until(a, [(2, c)], nl.ERROR, 0, 'ERROR'))
print('rank 1 eviction:', until(b, [(2, c)], nl.ERROR, 1, "rank 1's eviction"))
b.send(hdr(nl.HEARTBEAT, 1))
print('rank 1 heartbeat after:', until(b, [(2, c)], nl.ERROR, 1, 'ERROR'))
b.send(hdr(nl.COMPUTE, 1, 0, a=5))
print('rank 1 compute after:', until(b, [(2, c)], nl.ERROR, 1, 'ERROR'))
c.send(hdr(nl.BYE, 2, 0))
until(c, [], nl.DONE, 2, "rank 2's BYE")
print('done')
"""


VERSION = r"""
import struct, sys
sys.path.insert(0, sys.argv[1])
import zmq
import netloom_client as nl
s = zmq.Context().socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 1000); s.connect(sys.argv[2])
def hdr(t, ver=1, seq=0, aux=0, a=0):
    return struct.pack('<HBBHHIIiiIIQQQ', 0x4c4e, ver, t, 0, 0, 0, seq, 0, 0, aux, 0, a, 0, 0)
def reply():
    if not s.poll(10000):
        print('timeout'); sys.exit(1)
    p = s.recv_multipart()
    h = nl.HDR.unpack(p[0])
    return '%s %d %s' % ({nl.WELCOME: 'WELCOME', nl.DONE: 'DONE', nl.ERROR: 'ERROR'}.get(h[2], h[2]), h[8] if
                          h[2] == nl.ERROR else h[6], p[1].decode() if len(p) > 1 else '')
s.send(hdr(nl.HELLO, ver=2, aux=1)); print('hello v2:', reply())
s.send(hdr(nl.HELLO, aux=1)); print('hello v1:', reply().split()[0])
s.send(hdr(nl.COMPUTE, ver=2, a=5)); print('compute v2:', reply())
s.send(hdr(nl.COMPUTE, ver=0, a=5)); print('compute v0:', reply())
s.send(hdr(nl.BYE, seq=0)); print('bye:', reply())
"""


def case_version_error(d):
    """A frame header of another protocol version is ERROR 2 (unsupported
    version, docs/zmq-protocol.md), not 1 (malformed), before and after
    HELLO; the connection that holds the rank goes on."""
    s, out = py_session(d, 1, 'version', VERSION)
    expect(out.splitlines() == [
        'hello v2: ERROR 2 connection claiming rank 0: frame header: version 2, expected 1',
        'hello v1: WELCOME',
        'compute v2: ERROR 2 rank 0: frame header: version 2, expected 1',
        'compute v0: ERROR 2 rank 0: frame header: version 0, expected 1',
        'bye: DONE 0 '], 'replies: %s' % out)
    expect(s.wait() == 0, 'server: %s' % open(s.err).read())
    # One rank is "1 rank" ("1 ranks" before).
    head = open(s.out).read().split('\n')[0]
    expect(head.startswith('netloom serve: 1 rank, analytic backend, ') and head.endswith(', 0 messages delivered'),
           'report head: %r' % head)


# Frames a buggy client sends, from rank 0 (--max-payload 1024): each gets
# an ERROR whose code is the fault its line names, then the two ranks
# exchange a message and finish. A frame malformed in any way was ERROR 6
# (payload over the limit) when it carried more than --max-payload bytes,
# and too many frames were "more than header + payload frames".
FRAMES = RAW_DEALER + r"""
import struct
a, b = sock(), sock()
a.send(hdr(nl.HELLO, 0)); reply(a); b.send(hdr(nl.HELLO, 1)); reply(b)
b.send(hdr(nl.RECV, 1, 0, peer=0, tag=3, a=1024))
big = b'x' * 2000
for what, frames in (('compute with a big payload', [hdr(nl.COMPUTE, 0, 0, a=5), big]),
                     ('bad magic with a big payload', [b'\x01\x00' + hdr(nl.SEND, 0, 0, peer=1)[2:], big]),
                     ('send peer -1 with a big payload', [hdr(nl.SEND, 0, 0, peer=-1), big]),
                     ('send with a big payload', [hdr(nl.SEND, 0, 0, peer=1), big]),
                     ('send with 1024 bytes', None),
                     ('compute with two more frames', [hdr(nl.COMPUTE, 0, 1, a=5), b'x', b'y']),
                     ('send with three payload frames', [hdr(nl.SEND, 0, 1, peer=1), b'x', b'y', b'z']),
                     ('send without its payload', [hdr(nl.SEND, 0, 1, peer=1)]),
                     ('header of 55 bytes', [hdr(nl.COMPUTE, 0, 1, a=5)[:55]]),
                     ('type 10', [hdr(nl.COMPUTE, 0, 1, a=5)[:3] + b'\x0a' + hdr(nl.COMPUTE, 0, 1, a=5)[4:]])):
    if frames is None:
        a.send_multipart([hdr(nl.SEND, 0, 0, peer=1, tag=3), b'y' * 1024])
        h, text = reply(a)
        print('%s: type %d seq %d' % (what, h[2], h[6]))
        continue
    a.send_multipart(frames)
    h, text = reply(a)
    print('%s: %d %s' % (what, h[8], text))
a.send(hdr(nl.BYE, 0, 1)); b.send(hdr(nl.BYE, 1, 1))
got = 0
for s, r in ((a, 0), (b, 1)):
    while True:
        h, text = reply(s)
        if h[2] == nl.ERROR:
            print('rank %d unexpected error %d %s' % (r, h[8], text)); sys.exit(1)
        got += h[2] == nl.DELIVER and h[7] == 0 and h[8] == 3
        if h[2] == nl.DONE and h[6] == 1:
            break
print('delivered', got)
"""


JOBPEER = RAW_DEALER + r"""
a = sock()
a.send(hdr(nl.HELLO, 2)[:24] + (2).to_bytes(4, 'little') + hdr(nl.HELLO, 2)[28:]); reply(a)
for what, frames in (('send', [hdr(nl.SEND, 2, 0, peer=0), b'x']), ('recv', [hdr(nl.RECV, 2, 0, peer=1)])):
    a.send_multipart(frames)
    h, text = reply(a)
    print('%s: %d %s' % (what, h[8], text))
a.send(hdr(nl.BYE, 2, 0))
while reply(a)[0][2] != nl.DONE:
    pass
"""


def case_frame_errors(d):
    """Each malformed frame gets the ERROR code of what its line names
    (docs/zmq-protocol.md): ERROR 6 only for a payload over --max-payload
    on an otherwise good frame; a wrong frame count says how many frames
    came and what was expected. The session goes on."""
    need_pyzmq()
    script = os.path.join(d, 'frames.py')
    open(script, 'w').write(FRAMES)
    s = Server(d, 2, '-s', 'backend=analytic', '--max-payload', '1024', name='frames')
    (rc, out), = clients([[PY, script, PYDIR, s.ep]], d, 'frames')
    counts = 'expected a header frame and at most one payload frame'
    expect(rc == 0 and out.splitlines() == [
        'compute with a big payload: 1 rank 0: COMPUTE: a payload frame follows, expected none',
        'bad magic with a big payload: 1 rank 0: frame header: magic 0x0001, expected 0x4c4e',
        'send peer -1 with a big payload: 8 rank 0: SEND: peer -1 tag 0, expected both >= 0',
        'send with a big payload: 6 rank 0: SEND: payload of 2000 bytes, expected at most 1024',
        'send with 1024 bytes: type 17 seq 0',
        'compute with two more frames: 1 rank 0: message of 3 frames, ' + counts,
        'send with three payload frames: 1 rank 0: message of 4 frames, ' + counts,
        'send without its payload: 1 rank 0: SEND: no payload frame, expected one (possibly empty)',
        'header of 55 bytes: 1 rank 0: frame header: length 55, expected 56 bytes',
        'type 10: 1 rank 0: frame header: type 10, expected a known message type',
        'delivered 1'], 'client: %d %s' % (rc, out))
    expect(s.wait() == 0, 'server: %s' % open(s.err).read())
    live = json.load(open(s.json))['live']
    expect([r['state'] for r in live['ranks']] == ['finished', 'finished'] and live['ranks'][0]['refused_frames'] == 9
           and live['refused_frames'] == 9 and live['delivered'] == 1, 'JSON: %s' % live)
    # A peer in another job (--jobs 2,2) is ERROR 8 naming the op and the
    # ranks it may name (it was 'peer 0 is in job 1, rank 2 in job 2
    # (ranks only talk within their job)', for SEND and RECV alike).
    script = os.path.join(d, 'jobpeer.py')
    open(script, 'w').write(JOBPEER)
    # The client starts first, and has 2 s to say HELLO: a 500 ms window
    # after the server missed it under load (Python's start), all 4 ranks
    # were evicted and the client said 'timeout'. The ranks that never
    # come end the session when the window closes.
    procs = clients_start([[PY, script, PYDIR, 'ipc://%s/jobpeer.sock' % d]], d, 'jobpeer')
    s = Server(d, 4, '-s', 'backend=analytic', '--jobs', '2,2', '--connect-timeout-ms', '2000', name='jobpeer')
    (rc, out), = clients_wait(procs)
    expect(rc == 0 and out.splitlines() == [
        'send: 8 rank 2: SEND: peer 0 is in job 1, expected a rank of job 2 (2..3): ranks only talk within their job',
        'recv: 8 rank 2: RECV: peer 1 is in job 1, expected a rank of job 2 (2..3) or -1 (any): ranks only talk '
        'within their job'], 'job peers: %d %s' % (rc, out))
    # Job 1 never came: the session fails for it (jobs_never_connected).
    expect(s.wait() == 1 and open(s.err).read().endswith('netloom serve: no rank finished in job 1 (ranks 0-1): none '
                                                         'of its 2 ranks ever connected (no --record archive '
                                                         'written)\n'),
           'job peers: server: %s' % open(s.err).read())


# Refused frames, each counted once (docs/live.md "Robustness"): against
# the rank a frame is about, whoever sent it, else as without a rank. A
# takeover HELLO was counted twice (against the rank and as rankless), an
# op for a rank from another connection only as rankless.
ACCOUNT = RAW_DEALER + r"""
a, b, x = sock(), sock(), sock()
a.send(hdr(nl.HELLO, 0)); reply(a); b.send(hdr(nl.HELLO, 1)); reply(b)
for s, frames, what in ((a, [hdr(nl.HELLO, 0)], 'own second HELLO'),
                        (x, [hdr(nl.HELLO, 0)], 'takeover HELLO'),
                        (b, [hdr(nl.SEND, 0, 0, peer=1), b'zz'], 'op for rank 0 from rank 1'),
                        (x, [hdr(nl.COMPUTE, 1, 0, a=5)], 'op for rank 1 from no rank'),
                        (x, [hdr(nl.HELLO, 7)], 'HELLO for no rank'),
                        (x, [hdr(nl.COMPUTE, 7, 0, a=5)], 'op for no rank'),
                        (a, [hdr(nl.HEARTBEAT, 2)], 'heartbeat for no rank from rank 0'),
                        (x, [b'junk'], 'garbage')):
    s.send_multipart(frames)
    h, text = reply(s)
    print('%s: %d %s' % (what, h[8], text))
a.send_multipart([hdr(nl.SEND, 0, 0, peer=1, tag=9), b'never received'])
a.send(hdr(nl.BYE, 0, 1))
b.send(hdr(nl.BYE, 1, 0))
for s, seq in ((a, 1), (b, 0)):
    while True:
        h, text = reply(s)
        if h[2] == nl.ERROR:
            print('unexpected error %d %s' % (h[8], text)); sys.exit(1)
        if h[2] == nl.DONE and h[6] == seq:
            break
print('both done')
"""


# Server-to-client types sent by a client: before HELLO (a connection
# claiming rank 0) and after it (from rank 0). One rank.
TOCLIENT = RAW_DEALER + r"""
a, x = sock(), sock()
# A server's type whatever its other fields: a DONE with field 'aux', a
# DELIVER without its payload frame, an ERROR of code 0 (each was refused
# for that field, as if a client might send a well-formed one).
bad_aux = nl.HDR.pack(nl.MAGIC, 1, nl.DONE, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0)
x.send(hdr(nl.WELCOME, 0)); h, text = reply(x)
print('WELCOME before HELLO: %d %s' % (h[8], text))
x.send(bad_aux); h, text = reply(x)
print('DONE with aux before HELLO: %d %s' % (h[8], text))
a.send(hdr(nl.HELLO, 0)); reply(a)
for t, frames in (('DONE', [hdr(nl.DONE, 0)]), ('DELIVER', [hdr(nl.DELIVER, 0), b'x']),
                  ('ERROR', [hdr(nl.ERROR, 0, tag=1), b'hi']), ('DONE with aux', [bad_aux]),
                  ('DELIVER without payload', [hdr(nl.DELIVER, 0)]), ('ERROR of code 0', [hdr(nl.ERROR, 0)])):
    a.send_multipart(frames); h, text = reply(a)
    print('%s after HELLO: %d %s' % (t, h[8], text))
a.send(hdr(nl.BYE, 0, 0))
while reply(a)[0][2] != nl.DONE:
    pass
print('done')
"""


GARBAGE = r"""
import os, struct, sys
sys.path.insert(0, sys.argv[1])
import zmq
import netloom_client as nl
s = zmq.Context().socket(zmq.DEALER); s.setsockopt(zmq.LINGER, 1000); s.connect(sys.argv[2])
n = int(sys.argv[3])
errors = 0
def take(k):  # read as it goes: the server queues at most 1,000 frames for a connection
    global errors
    for _ in range(k):
        if not s.poll(20000):
            print('timeout after', errors, 'errors'); sys.exit(1)
        errors += nl.HDR.unpack(s.recv_multipart()[0])[2] == nl.ERROR
for i in range(n):  # bad magic, claiming rank 0 or no rank at all; never said HELLO
    s.send(b'\xde\xad' + bytes(6) + struct.pack('<I', 0 if i % 2 else 7) + os.urandom(44) if i % 3 else b'junk')
    if i % 500 == 499:
        take(500)
take(n % 500)
s.send(nl.HDR.pack(nl.MAGIC, 1, nl.HELLO, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0))
s.send(nl.HDR.pack(nl.MAGIC, 1, nl.BYE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
while True:
    if not s.poll(20000):
        print('timeout after', errors, 'errors'); sys.exit(1)
    h = nl.HDR.unpack(s.recv_multipart()[0])
    errors += h[2] == nl.ERROR
    if h[2] == nl.DONE:
        break
print('errors', errors)
"""


def case_rankless_flood(d):
    """Refused frames from connections holding no rank are logged a few
    times, then counted, as a rank's are: 5,000 garbage frames give a
    bounded number of log lines, each still an ERROR to the sender, and the
    count in the text report and JSON."""
    need_pyzmq()
    script = os.path.join(d, 'garbage.py')
    open(script, 'w').write(GARBAGE)
    s = Server(d, 1, '-s', 'backend=analytic')
    (rc, out), = clients([[PY, script, PYDIR, s.ep, '5000']], d, 'garbage')
    expect(rc == 0 and out.strip() == 'errors 5000', 'client: %d %s' % (rc, out))
    expect(s.wait() == 0, 'server: %s' % open(s.err).read())
    err = open(s.err).read().splitlines()
    about = [l for l in err if 'without a rank' in l or 'claiming rank' in l]
    expect(len(about) == 5 and
           about[3] == 'netloom serve: connections without a rank: further refused frames are counted, not logged'
           and about[4] == 'netloom serve: connections without a rank: 5000 refused frames in all, 4997 not logged',
           'log: %d lines, %s' % (len(about), about[:8]))
    live = json.load(open(s.json))['live']
    expect(live['refused_frames'] == 5000 and live['refused_frames_without_rank'] == 5000
           and live['ranks'][0]['state'] == 'finished' and live['ranks'][0]['refused_frames'] == 0, 'JSON: %s' % live)
    expect('  connections without a rank: 5000 refused frames (3 logged)' in open(s.out).read().splitlines(),
           'report: %s' % open(s.out).read())


def case_protocol(d):
    """Protocol validation (docs/zmq-protocol.md) on raw frames: COMPUTE
    durations are bounded (no u64 virtual clock can wrap); a second HELLO
    is refused and keeps the first one's terms; WAIT/WAITALL name only
    isends/irecvs not waited for yet; a negative peer or tag is ERROR 8."""
    s, out = py_session(d, 2, 'proto', PROTO)
    srv = s.wait()
    lines = out.splitlines()
    refused = {l.split(':')[0][len('refused '):]: l.split(': ', 1)[1] for l in lines if l.startswith('refused ')}
    want = {
        'hello again': '4 rank 0: HELLO: rank 0 already said HELLO on this connection',
        'compute 2^63': "1 rank 0: COMPUTE: field 'a' (duration) is 9223372036854775808 ps, expected at most 2^62",
        'compute 2^64-1': "1 rank 0: COMPUTE: field 'a' (duration) is 18446744073709551615 ps, expected at most",
        'compute 1 past the bound': "1 rank 0: COMPUTE: field 'a' (duration) is 2233785415175766017 ps, "
                                    "expected at most 2233785415175766016 (the rank's declared compute stays "
                                    "within 2^62 - 2^56 ps)",
        'compute past 2^62': "1 rank 0: COMPUTE: field 'a' (duration) is 1 ps, expected at most 0 (the rank's "
                             "declared compute stays within 2^62 - 2^56 ps)",
        'wait on a compute': '10 rank 0: WAIT: request 0, expected the seq of an isend or irecv not waited for yet',
        'send tag -3': '8 rank 0: SEND: peer 1 tag -3, expected both >= 0',
        'send peer -1': '8 rank 0: SEND: peer -1 tag 0, expected both >= 0',
        'recv tag -2': '8 rank 0: RECV: peer 1 tag -2, expected >= 0 or -1 (any)',
        'wait on a blocking send': '10 rank 0: WAIT: request 2, expected the seq of an isend or irecv',
        'wait twice': '10 rank 0: WAIT: request 3, expected the seq of an isend or irecv not waited for yet',
        'waitall twice the same': '10 rank 0: WAITALL: request 5 named twice, expected',
        'waitall on a waited request': '10 rank 0: WAITALL: request 3, expected the seqs of isends or irecvs',
    }
    for k, v in want.items():
        expect(refused.get(k, '').startswith(v), '%s: got %r, expected %r...' % (k, refused.get(k), v))
    # The refused second HELLO asked for LEAN: not granted, so COMPUTE and
    # the isends still get their DONE (every op of the stream, in order).
    expect('rank 0 done 0 1 2 3 4 5 6 7' in lines, 'DONEs: %s' % out)
    # COMPUTEs of 2^61 and 2^61 - 2^56 ps: the clock is at the bound,
    # 2^62 - 2^56 ps, not wrapped to 0, and its sends reach the network.
    last = [int(l.split()[-1]) for l in lines if l.startswith('rank 0 last time')]
    expect(last and 0 <= last[0] < 10**9, 'rank 0 final time - (2^62 - 2^56): %s' % last)
    r1 = [l for l in lines if l.startswith('rank 1 ')]
    expect(r1 and r1[0].startswith('rank 1 deliver 0 t_sent-2^62 0 | deliver 1 t_sent-2^62 0 | deliver 2 '
                                   't_sent-2^62 0 | error 1 about 1: rank 1: COMPUTE: field \'a\' (duration) is '
                                   '2305843009213693952 ps at virtual time ') and
           r1[0].endswith('expected at most 0 (bound 2^62 - 2^56 ps)'),
           'rank 1: %s' % r1)
    expect(srv == 0, 'server exited %d: %s' % (srv, open(s.err).read()))
    rep = json.load(open(s.json))
    ranks = rep['live']['ranks']
    expect(ranks[0]['state'] == 'finished' and ranks[0]['refused_frames'] == 13, 'rank 0: %s' % ranks[0])
    expect(ranks[1]['state'] == 'evicted' and '(bound 2^62 - 2^56 ps)' in ranks[1]['what_happened'], 'rank 1: %s' % ranks[1])
    rt = rep['results']['runtime']['predicted_s']
    t = (2**62 - 2**56) * 1e-12
    expect(t <= rt < t + 1, 'runtime %r s, expected 2^62 - 2^56 ps and a little' % rt)
    # Every op after a BYE gets an ERROR and counts against its rank.
    s, out = py_session(d, 2, 'afterbye', AFTERBYE)
    srv = s.wait()
    lines = out.splitlines()
    expect(lines[:2] == ['rank 0 got 19 10 rank 0: SEND: seq 2 after BYE (seq 1), expected no further op',
                         'rank 0 got 19 10 rank 0: COMPUTE: seq 3 after BYE (seq 1), expected no further op']
           and 'both done' in lines, 'after BYE: %s' % out)
    expect(srv == 0, 'after BYE: server exited %d: %s' % (srv, open(s.err).read()))
    live = json.load(open(s.json))['live']
    expect(live['ranks'][0]['state'] == 'finished' and live['ranks'][0]['refused_frames'] == 2 and
           live['refused_frames'] == 2, 'after BYE: %s' % live)
    # Frames after a rank's end get ERROR 9 'rank R was evicted: WHY' (it
    # was the bare WHY, as if the new frame were refused for it) or 'rank
    # R has finished' (was 'rank finished').
    script = os.path.join(d, 'afterend.py')
    open(script, 'w').write(AFTEREND)
    s = Server(d, 3, '-s', 'backend=analytic', '--heartbeat-ms', '100', '--timeout-ms', '600', name='afterend')
    (rc, out), = clients([[PY, script, PYDIR, s.ep]], d, 'afterend')
    why = 'silent for more than 600 ms (heartbeat timeout)'
    expect(rc == 0 and out.splitlines() == [
        'rank 0 heartbeat after BYE: 9 about 0: rank 0 has finished',
        'rank 1 eviction: 9 about 1: rank 1 evicted: ' + why,
        'rank 1 heartbeat after: 9 about 1: rank 1 was evicted: ' + why,
        'rank 1 compute after: 9 about 1: rank 1 was evicted: ' + why,
        'done'], 'after the end: %d %s' % (rc, out))
    expect(s.wait() == 0, 'after the end: server: %s' % open(s.err).read())
    # Every refused frame counted once, totals the sums of their parts; a
    # message its receiver never took is warned about in the text report.
    s, out = py_session(d, 2, 'account', ACCOUNT)
    srv = s.wait()
    expect(out.splitlines() == [
        'own second HELLO: 4 rank 0: HELLO: rank 0 already said HELLO on this connection, expected one HELLO',
        'takeover HELLO: 4 connection claiming rank 0: HELLO: rank 0 is taken by another connection (connected), '
        'expected a rank no connection holds',
        'op for rank 0 from rank 1: 7 connection claiming rank 0: SEND for rank 0 from a connection that did not '
        'HELLO as it',
        'op for rank 1 from no rank: 7 connection claiming rank 1: COMPUTE for rank 1 from a connection that did '
        'not HELLO as it',
        'HELLO for no rank: 3 connection without a rank: HELLO: rank 7, expected 0..1',
        'op for no rank: 3 connection without a rank: COMPUTE: rank 7, expected 0..1',
        'heartbeat for no rank from rank 0: 3 connection without a rank: HEARTBEAT: rank 2, expected 0..1',
        'garbage: 1 connection without a rank: frame header: length 4, expected 56 bytes',
        'both done'], 'accounting: %s' % out)
    expect(srv == 0, 'accounting: server exited %d: %s' % (srv, open(s.err).read()))
    rep = json.load(open(s.json))
    live = rep['live']
    expect([r['refused_frames'] for r in live['ranks']] == [3, 1] and live['refused_frames_without_rank'] == 4 and
           live['refused_frames'] == 8 and live['jobs'][0]['refused_frames'] == 4 and
           live['jobs'][0]['never_connected'] == 0 and
           live['ranks'][0]['what_happened'] == 'another connection sent frames for this rank (refused, 2 times)',
           'accounting JSON: %s' % live)
    text = open(s.out).read()
    expect(rep['results']['messages']['unmatched'] == 1 and '  warning: 1 message was sent but never received\n' in text and
           '  rank 0: finished; 3 refused frames;' in text and '  rank 1: finished; 1 refused frame;' in text and
           '  connections without a rank: 4 refused frames (3 logged)' in text, 'accounting text: %s' % text)
    # A server-to-client type from a client is named, with the types a
    # client may send ("WELCOME for rank 0 from a connection that did not
    # HELLO as it" before HELLO, "server-to-client message type from a
    # client" after).
    s, out = py_session(d, 1, 'toclient', TOCLIENT)
    srv = s.wait()
    types = 'is a server-to-client type, expected a client to send only HELLO, SEND, RECV, WAIT, COMPUTE, BARRIER, ' \
            'BYE, HEARTBEAT or WAITALL'
    expect(out.splitlines() == [
        'WELCOME before HELLO: 1 connection claiming rank 0: WELCOME (type 16) ' + types,
        'DONE with aux before HELLO: 1 connection claiming rank 0: DONE (type 17) ' + types,
        'DONE after HELLO: 1 rank 0: DONE (type 17) ' + types,
        'DELIVER after HELLO: 1 rank 0: DELIVER (type 18) ' + types,
        'ERROR after HELLO: 1 rank 0: ERROR (type 19) ' + types,
        'DONE with aux after HELLO: 1 rank 0: DONE (type 17) ' + types,
        'DELIVER without payload after HELLO: 1 rank 0: DELIVER (type 18) ' + types,
        'ERROR of code 0 after HELLO: 1 rank 0: ERROR (type 19) ' + types,
        'done'], 'server-to-client types: %s' % out)
    live = json.load(open(s.json))['live']
    expect(srv == 0 and live['ranks'][0]['refused_frames'] == 8 and live['refused_frames'] == 8,
           'server-to-client types: server %d: %s %s' % (srv, open(s.err).read(), live))
    # The bound is checked before the engine hands an op to the network
    # (after cpu_factor): a job past it loses its offending ranks, not the
    # session (it stopped with every job's results lost).
    script = os.path.join(d, 'bound.py')
    open(script, 'w').write(BOUND)
    s = Server(d, 6, '-s', 'backend=analytic', '-s', 'cpu_factor=2', '--jobs', '2,2,2', '--timeout-ms', '5000',
               name='bound')
    (rc, out), = clients([[PY, script, PYDIR, s.ep]], d, 'bound')
    srv = s.wait()
    err = open(s.err).read()
    expect(srv == 1 and 'backend' not in err and os.path.exists(s.json), 'server %d: %s' % (srv, err))
    lines = out.splitlines()
    expect('rank 0 ok' in lines and 'rank 1 ok' in lines, 'job 1: %s' % out)
    expect("rank 2 evicted: COMPUTE: field 'a' (duration) is 2305843009213693952 ps (4611686018427387904 with "
           "cpu_factor 2) at virtual time 0 ps, expected at most 4539628424389459968 (bound 2^62 - 2^56 ps)" in err,
           'rank 2: %s' % err)
    expect('rank 5 evicted: SEND seq 1: virtual time 4539628424390' in err and
           'expected at most 4539628424389459968 (bound 2^62 - 2^56 ps)' in err, 'rank 5: %s' % err)
    live = json.load(open(s.json))['live']
    states = [r['state'] for r in live['ranks']]
    expect(states[:2] == ['finished', 'finished'] and states[2] == 'evicted' and states[5] == 'evicted',
           'states: %s' % states)


def tcp_session(d, name, listen, connect=None, python=(), n=2):
    """A ring over TCP: the server's log line and JSON give the endpoint it
    bound; clients connect there (or to `connect`, with the bound port)."""
    err, js = os.path.join(d, name + '.err'), os.path.join(d, name + '.json')
    p = popen([NETLOOM, 'serve', '--ranks', str(n), '--listen', listen, '--json', js, '-s',
                          'backend=analytic'], stdout=subprocess.DEVNULL, stderr=open(err, 'w'))
    t0, bound = time.time(), None
    while bound is None:
        m = [l for l in open(err).read().splitlines() if 'listening on ' in l]
        if m:
            bound = m[0].split('listening on ')[1].split()[0]
        elif p.poll() is not None or time.time() - t0 > 10:
            p.kill()
            fail('%s: server did not start: %s' % (name, open(err).read()))
        time.sleep(0.02)
    port = bound.rsplit(':', 1)[1]
    ep = connect % port if connect else bound
    cmds = [[PY, os.path.join(PYDIR, 'ring.py'), ep, str(r), '3', '16'] if r in python else
            [RING, ep, str(r), '3', '16'] for r in range(n)]
    res = clients(cmds, d, name)
    try:
        rc = p.wait(TMO)
    except subprocess.TimeoutExpired:
        p.kill()
        fail('%s: server hung' % name)
    for r, (crc, out) in enumerate(res):
        expect(crc == 0 and 'done' in out, '%s: client %d exited %d: %s' % (name, r, crc, out))
    expect(rc == 0, '%s: server exited %d: %s' % (name, rc, open(err).read()))
    return bound, json.load(open(js))['live']['listen']


def free_port(family=socket.AF_INET, host='127.0.0.1'):
    with socket.socket(family) as so:
        so.bind((host, 0))
        return so.getsockname()[1]


def case_listen_tcp(d):
    """--listen over TCP: port 0 or * binds a free port, and the log line
    and JSON live.listen give the real one; tcp://localhost:PORT binds
    127.0.0.1, tcp://[::1]:PORT binds IPv6 loopback; C and Python clients
    run a ring over each."""
    for port in ('0', '*'):
        bound, js = tcp_session(d, 'any' + ('0' if port == '0' else 's'), 'tcp://127.0.0.1:' + port, python=(1,))
        expect(bound.startswith('tcp://127.0.0.1:') and int(bound.rsplit(':', 1)[1]) > 0 and js == bound,
               'port %s: log %s, JSON %s' % (port, bound, js))
    # The log line counts its ranks as the report does (it said 'for 1 ranks').
    err = os.path.join(d, 'one.err')
    for n, what in ((1, '1 rank'), (2, '2 ranks')):
        rc = subprocess.run([NETLOOM, 'serve', '--ranks', str(n), '--listen', 'tcp://127.0.0.1:0',
                             '--connect-timeout-ms', '100'], stdout=subprocess.DEVNULL, stderr=open(err, 'w'),
                            timeout=TMO).returncode
        line = open(err).read().splitlines()[0]
        expect(rc == 1 and re.fullmatch(r'netloom serve: listening on tcp://127\.0\.0\.1:[0-9]+ for ' + what, line),
               '--ranks %d: exit %d, log line %r' % (n, rc, line))
    fp = free_port()
    bound, js = tcp_session(d, 'lh', 'tcp://localhost:%d' % fp, connect='tcp://localhost:%s')
    expect(bound == js == 'tcp://127.0.0.1:%d' % fp, 'localhost: log %s, JSON %s' % (bound, js))
    try:
        free_port(socket.AF_INET6, '::1')
    except OSError:
        print('no IPv6 loopback here: [::1] not tried')
        return
    bound, js = tcp_session(d, 'v6', 'tcp://[::1]:0', python=(0,))
    expect(bound.startswith('tcp://[::1]:') and int(bound.rsplit(':', 1)[1]) > 0 and js == bound,
           '[::1]: log %s, JSON %s' % (bound, js))


ALLREDUCE = r"""
import ctypes, sys
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
ep, r, job, lang, lib = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
vals = [float(r), 1.0, 0.5 * r]
if lang == 'py':
    c = nl.Client(ep, r, job=job, timeout_ms=8000)
    rng = (c.job_first, c.job_size)
    out = c.allreduce_sum(vals)
    c.barrier(); c.close()
else:   # the C client (libnetloom-client) through ctypes
    L = ctypes.CDLL(lib)
    L.nl_client_connect.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_uint32,
                                    ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
    L.nl_client_allreduce_sum.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double), ctypes.c_size_t]
    L.nl_client_error.restype = ctypes.c_char_p
    L.nl_client_error.argtypes = [ctypes.c_void_p]
    L.nl_client_barrier.argtypes = L.nl_client_close.argtypes = [ctypes.c_void_p]
    c, err = ctypes.c_void_p(), ctypes.create_string_buffer(256)
    if L.nl_client_connect(ctypes.byref(c), ep.encode(), r, job, 0, 8000, err, 256) < 0:
        sys.exit('connect: ' + err.value.decode())
    L.nl_client_job_first.argtypes = L.nl_client_job_size.argtypes = [ctypes.c_void_p]
    rng = (L.nl_client_job_first(c), L.nl_client_job_size(c))
    L.nl_client_compute.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
    if L.nl_client_compute(c, 2**64 - 1) != -1 or not L.nl_client_error(c).startswith(
            b'compute: duration 18446744073709551615 ps, expected at most 2^62'):
        sys.exit('compute 2^64-1: %s' % L.nl_client_error(c))
    buf = (ctypes.c_double * 3)(*vals)
    if L.nl_client_allreduce_sum(c, buf, 3) < 0 or L.nl_client_barrier(c) < 0:
        sys.exit('allreduce: ' + L.nl_client_error(c).decode())
    out = list(buf)
    if L.nl_client_close(c) < 0:
        sys.exit('close failed')
# The job's world ranks as the WELCOME gave them (--jobs 2,3).
if rng != {1: (0, 2), 2: (2, 3)}[job]:
    sys.exit('job %d: job_first, job_size %s' % (job, rng))
print('sum', ' '.join('%g' % x for x in out))
"""


def case_jobs_allreduce(d):
    """allreduce_sum runs within the caller's job (WELCOME's job range),
    in both clients: under --jobs 2,3 each job gets its own sum, no message
    crosses jobs, and the C and Python clients give the same message log."""
    need_pyzmq()
    script = os.path.join(d, 'allreduce.py')
    open(script, 'w').write(ALLREDUCE)
    jobs = [1, 1, 2, 2, 2]
    sums = {1: 'sum 1 2 0.5', 2: 'sum 9 3 4.5'}
    logs = {}
    for langs in (('py',) * 5, ('c',) * 5, ('py', 'c', 'c', 'py', 'c')):
        name = 'ar' + ''.join(l[0] for l in langs)
        s = Server(d, 5, '-s', 'backend=analytic', '--jobs', '2,3', '--timeout-ms', '3000', name=name)
        res = clients([[PY, script, PYDIR, s.ep, str(r), str(jobs[r]), langs[r], LIBCLIENT] for r in range(5)],
                      d, name)
        for r, (rc, out) in enumerate(res):
            expect(rc == 0 and out.strip() == sums[jobs[r]], '%s rank %d (job %d): %d %s' % (
                name, r, jobs[r], rc, out))
        expect(s.wait() == 0, '%s: server: %s' % (name, open(s.err).read()))
        log = [l.split() for l in open(s.msgs)]
        expect(len(log) == 2 * 1 + 2 * 2 and all(jobs[int(f[0])] == jobs[int(f[1])] for f in log),
               '%s: messages %s' % (name, log))
        logs[name] = open(s.msgs).read()
    expect(len(set(logs.values())) == 1, 'C and Python allreduce differ in virtual time: %s' % logs)


def case_jobs_examples(d):
    """The shipped examples run one job each under --jobs 4,4 (they built
    their ring or grid over all ranks and connected as job 1, so job 2 was
    refused): the C ring as job 1 (its command line without JOB) and
    ring.py as job 2, then live_halo as job 1 and the C ring as job 2, both
    given JOB; every rank exits 0 and both jobs finish, no message crossing
    jobs."""
    need_pyzmq()
    for name, job1, job2 in (
            ('ringpy', lambda ep, r: [RING, ep, str(r), '3', '32'],
             lambda ep, r: [PY, os.path.join(PYDIR, 'ring.py'), ep, str(r), '3', '32', '2']),
            ('haloring', lambda ep, r: [HALO, ep, str(r), '2', '3', '32', '1'],
             lambda ep, r: [RING, ep, str(r), '3', '32', '0', '2'])):
        s = Server(d, 8, '-s', 'backend=analytic', '--jobs', '4,4', '--timeout-ms', '5000', name=name)
        res = clients([job1(s.ep, r) for r in range(4)] + [job2(s.ep, r) for r in range(4, 8)], d, name)
        for r, (rc, out) in enumerate(res):
            expect(rc == 0 and 'rank %d done' % r in out, '%s rank %d (job %d): exit %d: %s' % (
                name, r, 1 + r // 4, rc, out))
        expect(s.wait() == 0, '%s: server: %s' % (name, open(s.err).read()))
        jobs = json.load(open(s.json))['live']['jobs']
        expect([(j['job'], j['first_rank'], j['ranks'], j['finished'], j['evicted'], j['refused_frames'])
                for j in jobs] == [(1, 0, 4, 4, 0, 0), (2, 4, 4, 4, 0, 0)], '%s: jobs %s' % (name, jobs))
        log = [l.split() for l in open(s.msgs)]
        expect(log and all(int(f[0]) // 4 == int(f[1]) // 4 for f in log), '%s: messages %s' % (name, log))
        # Each job's ring or grid is its own: job 2's ring sends 4 -> 5 ->
        # 6 -> 7 -> 4, not to rank 0.
        pairs = {(int(f[0]), int(f[1])) for f in log if int(f[0]) >= 4}
        expect({(4, 5), (5, 6), (6, 7), (7, 4)} <= pairs, '%s: job 2 pairs %s' % (name, sorted(pairs)))


STOPPED = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import netloom_client as nl
rank = int(sys.argv[3])
c = nl.Client(sys.argv[2], rank, timeout_ms=30000)
print('connected', flush=True)
t = time.time()
try:
    # Known work before the stop (STOPPED_COMPUTE_PS): rank 0 ends blocked
    # in a receive nobody sends, rank 1 between ops (its client declares
    # none), which is where the engine waits when the signal comes, and
    # rank 2 inside a compute interval that ends long after.
    if rank == 2:
        c.compute(100000000000)
        c.recv(0, 99, 64)
    elif rank == 0:
        c.compute(3000000000)
        c.send(1, 7, b'a')
        c.compute(2000000000)
        c.send(1, 8, b'b')
        c.recv(1, 99, 64)
    else:
        c.compute(1000000000)
        c.recv(0, 7, 64)
        c.compute(4000000000)
        c.recv(0, 8, 64)
        print('ready', flush=True)
        c._await(c.seq)   # frames and heartbeats only, no further op
    print('got a message')
except nl.NetloomError as e:
    print('error after %.1f s: %s' % (time.time() - t, e))
"""
# What each rank of STOPPED computed and did before the stop, ps.
STOPPED_COMPUTE_PS = (5000000000, 5000000000, 0)
STOPPED_OPS = (4, 4, 0)
STOPPED_SENT = (2, 0, 0)


def check_partial(name, doc, text):
    """A stopped session's report gives each rank's figures up to its last
    completed operation (docs/live.md "Stopping"): the COMPUTE the clients
    declared, compute + comm + wait = the time they count up to, and the
    text's table marked partial."""
    res = doc['results']
    expect(res.get('partial') is True and res['runtime']['predicted_s'] is None
           and res['runtime']['stopped_at_s'] > 0.007, '%s: results: %s' % (name, res['runtime']))
    ranks = res['ranks']
    expect(len(ranks) == 3, '%s: per-rank results: %s' % (name, ranks))
    for r, x in enumerate(ranks):
        expect(abs(x['compute_s'] - STOPPED_COMPUTE_PS[r] * 1e-12) < 1e-15 and x['ops'] == STOPPED_OPS[r]
               and x['messages_sent'] == STOPPED_SENT[r] and x['finished'] is False and x['finish_s'] is None,
               '%s: rank %d: %s' % (name, r, x))
        expect(abs(x['compute_s'] + x['comm_s'] + x['wait_s'] - x['until_s']) < 1e-15
               and x['until_s'] <= res['runtime']['stopped_at_s'], '%s: rank %d times: %s' % (name, r, x))
    expect(ranks[0]['in_op'] == 'recv' and ranks[1]['in_op'] is None and ranks[2]['in_op'] == 'compute'
           and ranks[1]['until_s'] == res['runtime']['stopped_at_s'] and ranks[2]['until_s'] == 0,
           '%s: where the ranks were: %s' % (name, ranks))
    expect(ranks[1]['wait_s'] > 0 and ranks[0]['until_s'] < ranks[1]['until_s'], '%s: %s' % (name, ranks))
    expect('stopped at virtual time %.9f s (partial)' % res['runtime']['stopped_at_s'] in text
           and 'partial: each rank up to its last completed operation' in text, '%s: text: %s' % (name, text))
    rows = [l.split() for l in text.splitlines() if l.startswith('  ') and l.split()[0] in ('0', '1', '2')]
    expect([r[:2] for r in rows] == [['0', '0.005000000'], ['1', '0.005000000'], ['2', '0.000000000']]
           and [r[-2:] for r in rows] == [['in', 'recv'], ['between', 'ops'], ['in', 'compute']],
           '%s: rows: %s' % (name, rows))


def case_signal(d):
    """SIGTERM, SIGINT or SIGHUP (a closed terminal) stop `netloom serve`
    cleanly: the connected ranks get ERROR 13 at once (not after their
    timeout), the report and JSON are written marked stopped, no archive
    and no socket file, exit status 1 with one line. SIGHUP killed the
    server, leaving the socket file, and said nothing."""
    need_pyzmq()
    script = os.path.join(d, 'stopped.py')
    open(script, 'w').write(STOPPED)
    for sig, name in ((signal.SIGTERM, 'SIGTERM'), (signal.SIGINT, 'SIGINT'), (signal.SIGHUP, 'SIGHUP')):
        s = Server(d, 3 if sig == signal.SIGTERM else 2, '-s', 'backend=analytic', name=name.lower())
        if sig == signal.SIGTERM:  # three Python ranks that did known work
            cl, cl1, cl2 = [popen([PY, script, PYDIR, s.ep, str(r)], stdout=subprocess.PIPE,
                                             stderr=subprocess.STDOUT, text=True) for r in range(3)]
            line = cl.stdout.readline()
            expect(line.strip() == 'connected', 'client did not connect: %s' % line)
            line = cl1.stdout.readline() + cl1.stdout.readline()
            expect(line.split() == ['connected', 'ready'], 'client 1 did not get ready: %s' % line)
        else:  # the C client: rank 0 of a ring whose rank 1 never comes
            cl = popen([RING, s.ep, '0', '2', '16'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True)
            wait_ipc_clients(s.ep, 1)
        time.sleep(0.5)  # the HELLOs read: the ranks connected, not only their sockets
        t0 = time.time()
        s.p.send_signal(sig)
        rc = s.wait()
        expect(time.time() - t0 < 5, '%s: the server took %.1f s to stop' % (name, time.time() - t0))
        try:
            out = cl.communicate(timeout=10)[0]
        except subprocess.TimeoutExpired:
            cl.kill()
            fail('%s: the client was not told (still waiting)' % name)
        err = open(s.err).read().splitlines()
        expect(rc == 1 and err[-1] == 'netloom serve: stopped by %s before every rank finished' % name,
               '%s: rc %d, stderr %s' % (name, rc, err))
        told = 'stopped by %s before every rank finished' % name
        expect(told in out and (sig != signal.SIGTERM or 'error after' in out), '%s: client: %s' % (name, out))
        if sig != signal.SIGTERM:
            expect('session stopped' in out and cl.returncode != 0, 'C client: %d %s' % (cl.returncode, out))
        else:
            for i, c in ((1, cl1), (2, cl2)):
                o = c.communicate(timeout=10)[0]
                expect(told in o and 'error after' in o, '%s: client %d: %s' % (name, i, o))
            check_partial(name, json.load(open(s.json)), open(s.out).read())
        live = json.load(open(s.json))['live']
        expect(live['stopped'] is True and live.get('stopped_by') == name and live['stop_reason'] == told
               and live['ranks'][0]['state'] == 'connected'
               and live['jobs'][0]['never_connected'] == (0 if sig == signal.SIGTERM else 1),
               '%s: JSON live: %s' % (name, live))
        expect(told in open(s.out).read(), '%s: text report: %s' % (name, open(s.out).read()))
        expect(not os.path.exists(s.rec), '%s: a stopped session left an archive' % name)
        expect(not os.path.exists(s.ep[len('ipc://'):]), '%s: the socket file was left' % name)
        # The --messages log (staged) is moved into place with the
        # messages delivered before the stop, as the report counts them.
        first = open(s.out).readline().split()
        n_del = first[first.index('delivered,') - 2] if 'delivered,' in first else first[-3]
        expect(len(open(s.msgs).read().splitlines()) == int(n_del),
               '%s: --messages: %r, report: %s' % (name, open(s.msgs).read(), first))
        expect(not [f for f in os.listdir(d) if f.startswith(os.path.basename(s.msgs) + '.')],
               '%s: a temporary --messages file was left: %s' % (name, os.listdir(d)))
    # Under nohup (SIGHUP ignored at start) a closed terminal does not
    # stop the session: it goes on until a SIGTERM. Likewise SIGINT in a
    # script's background job (bash starts it ignored): a Ctrl-C meant for
    # the script did stop the server, which kept only SIGHUP ignored.
    for sig, name in ((signal.SIGHUP, 'nohup'), (signal.SIGINT, 'bgjob')):
        s = Server(d, 2, '-s', 'backend=analytic', name=name,
                   preexec_fn=lambda sig=sig: signal.signal(sig, signal.SIG_IGN))
        s.p.send_signal(sig)
        time.sleep(0.5)
        expect(s.p.poll() is None, '%s: %s ended the server: rc %s' % (name, sig.name, s.p.poll()))
        s.p.send_signal(signal.SIGTERM)
        rc, err = s.wait(), open(s.err).read().splitlines()
        expect(rc == 1 and err[-1:] == ['netloom serve: stopped by SIGTERM before every rank finished'],
               '%s: rc %d, stderr %s' % (name, rc, err))
    # A session that finishes says it was not stopped.
    f, _ = run_ring(d, 2, iters=1, extra=('-s', 'backend=analytic'), name='notstopped')
    live = json.load(open(f.json))['live']
    expect(live['stopped'] is False and 'stopped_by' not in live and 'stop_reason' not in live,
           'finished session marked stopped: %s' % live)
    signal_beside_trace(d)
    signal_twice(d)


def signal_beside_trace(d):
    """A signal while the trace beside replays on, its live ranks done,
    stops the session too: the engine pulled no live op any more, where
    the stop was checked, so SIGTERM was ignored until the trace's end (14
    s here) and the session reported as finished, exit 0."""
    s = Server(d, 2, '-s', 'backend=flit', '-s', 'topology=torus:k=8', '--trace', bulk_trace(d, k=20000),
               name='sigtrace')
    res = clients([[RING, s.ep, str(r), '1', '16'] for r in range(2)], d, 'sigtrace')
    expect(all(rc == 0 for rc, _ in res), 'ring: %s' % res)
    time.sleep(0.3)
    t0 = time.time()
    s.p.send_signal(signal.SIGTERM)
    try:
        rc = s.p.wait(5)
    except subprocess.TimeoutExpired:
        s.p.kill()
        s.p.wait()
        fail('beside a trace: SIGTERM did not stop the session within 5 s')
    err = open(s.err).read().splitlines()
    told = 'stopped by SIGTERM before every rank finished'
    expect(rc == 1 and err[-1] == 'netloom serve: ' + told and time.time() - t0 < 5,
           'beside a trace: rc %d, stderr %s' % (rc, err))
    rep = json.load(open(s.json))
    expect(rep['live']['stopped'] is True and rep['live']['stop_reason'] == told and rep['results']['partial'] is True
           and [r['state'] for r in rep['live']['ranks']] == ['finished', 'finished']
           and rep['beside_trace']['trace']['finish_s'] is None and not os.path.exists(s.rec),
           'beside a trace: %s %s' % (rep['live'], rep['beside_trace']))


def signal_twice(d):
    """Two signals. coreutils `timeout` sends SIGTERM to the server, then
    to its process group: the second, at once, is the same request, so
    the session stops as after one. It was killed (SA_RESETHAND) when it
    came after the first one's handler: no report, no ERROR 13 to the
    clients, j.json.tmpXXXXXX, r.nlt.rank*.tmp and the socket left,
    --messages replaced. A second signal 1 s later ends the server at once
    (a stop stuck writing --json into a FIFO nobody reads) and removes its
    temporary files first (the streams and the socket stayed)."""
    keep = ('j.json', 'm.txt', 'o.txt', 'e.txt')

    def start(name, *extra, tmo=(), env=None):
        t = os.path.join(d, name)
        os.mkdir(t)
        ep = 'ipc://%s/a.sock' % t
        open(os.path.join(t, 'm.txt'), 'w').write('old\n')
        p = popen(list(tmo) + [os.path.abspath(NETLOOM), 'serve', '--ranks', '3', '--listen', ep,
                                          '--messages', 'm.txt', '--record', 'r.nlt', '-s', 'backend=analytic']
                             + list(extra), cwd=t, env=env, stdout=open(os.path.join(t, 'o.txt'), 'w'),
                             stderr=open(os.path.join(t, 'e.txt'), 'w'))
        t0 = time.time()
        while not os.path.exists(os.path.join(t, 'a.sock')) and time.time() - t0 < 10:
            time.sleep(0.02)
        cl = [popen([RING, ep, str(r), '3', '64'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True) for r in range(2)]
        return t, p, cl

    def stopped(t, p, cl, rc_want, name):
        rc = p.wait(TMO)
        t_end = time.time()
        outs = [c.communicate(timeout=TMO)[0] for c in cl]
        err = open(os.path.join(t, 'e.txt')).read().splitlines()
        expect(rc == rc_want and err[-1:] == ['netloom serve: stopped by SIGTERM before every rank finished'],
               '%s: rc %d, stderr %s' % (name, rc, err))
        expect(time.time() - t_end < 5 and all('session stopped: stopped by SIGTERM' in o for o in outs),
               '%s: clients not told: %s' % (name, outs))
        live = json.load(open(os.path.join(t, 'j.json')))['live']
        expect(live['stopped'] is True and live['stopped_by'] == 'SIGTERM', '%s: JSON %s' % (name, live))
        expect('stopped at virtual time' in open(os.path.join(t, 'o.txt')).read(), '%s: no text report' % name)
        expect(open(os.path.join(t, 'm.txt')).read() == '', '%s: --messages %r'
               % (name, open(os.path.join(t, 'm.txt')).read()))
        left = sorted(set(os.listdir(t)) - set(keep))
        expect(left == [], '%s left %s' % (name, left))

    t, p, cl = start('tmo', '--json', 'j.json', tmo=('timeout', '2'))
    stopped(t, p, cl, 124, 'timeout 2')
    # The same burst, the second signal sure to come after the first one's
    # handler (timeout's can come before it, and both count once): 0.1 s
    # apart, while the stop waits to write --json into a FIFO.
    fifo = os.path.join(d, 'b.fifo')
    os.mkfifo(fifo)
    t, p, cl = start('burst', '--json', fifo)
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    time.sleep(0.1)
    p.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    expect(p.poll() is None, 'two signals 0.1 s apart: the server ended, rc %s' % p.poll())
    with open(fifo) as f:
        open(os.path.join(t, 'j.json'), 'w').write(f.read())
    stopped(t, p, cl, 1, 'two signals 0.1 s apart')
    # The second signal 1.5 s after the first, while the stop waits to
    # write --json into a FIFO: the server ends by it, and every temporary
    # file goes (the JSON's, staged in TMPDIR, the streams, the socket);
    # --messages was in place before. A SIGHUP (a closed terminal) counts
    # as a second signal as SIGTERM does.
    k = os.path.join(d, 'kill')
    os.mkdir(k)
    os.mkfifo(os.path.join(k, 'j.fifo'))
    t, p, cl = start('kill/run', '--json', '../j.fifo', env=dict(os.environ, TMPDIR=k))
    time.sleep(0.5)
    p.send_signal(signal.SIGTERM)
    t0 = time.time()
    while open(os.path.join(t, 'm.txt')).read() == 'old\n' and time.time() - t0 < 10:
        time.sleep(0.02)
    time.sleep(1.5)
    expect(p.poll() is None, 'the stop did not wait for the FIFO (rc %s)' % p.poll())
    staged = sorted(set(os.listdir(t) + os.listdir(k)) - set(keep + ('j.fifo', 'run')))
    p.send_signal(signal.SIGHUP)
    rc = p.wait(TMO)
    for c in cl:
        c.kill()
        c.wait(TMO)
    left = sorted(set(os.listdir(t) + os.listdir(k)) - set(keep + ('j.fifo', 'run')))
    expect(rc == -signal.SIGHUP and left == [] and len(staged) >= 4,
           'second signal: rc %d, left %s (staged before it: %s)' % (rc, left, staged))


def case_record_concurrent(d):
    """--record's per-rank streams are hidden files of names of the
    server's own (.NAME.nlt.r<rank>.tmpXXXXXX, mkstemp), not NAME.nlt.rankN.tmp:
    two servers recording into one folder at once, to two archives or to
    one, do not share them (to one, a server's stream was truncated and
    then removed by the other, and its archive lost), and a server killed
    with SIGKILL leaves nothing shown beside the archives."""
    stream = re.compile(r'\.(a|b|t)\.nlt\.r[01]\.tmp[A-Za-z0-9]{6}')

    def serve(w, name, rec):
        ep = 'ipc://%s/%s.sock' % (w, name)
        err = os.path.join(w, name + '.err')
        p = popen([NETLOOM, 'serve', '--ranks', '2', '--listen', ep, '--record', rec, '-s', 'backend=analytic',
                   '-q'], stdout=subprocess.DEVNULL, stderr=open(err, 'w'))
        t0 = time.time()
        while not os.path.exists(ep[len('ipc://'):]):
            if p.poll() is not None or time.time() - t0 > 10:
                fail('server %s did not start: %s' % (name, open(err).read()))
            time.sleep(0.02)
        return p, ep, err

    def run(w, name, srv):
        p, ep, err = srv
        res = clients([[RING, ep, str(r), '5', '64'] for r in range(2)], w, name + 'c')
        rc = p.wait(TMO)
        expect(rc == 0 and [c for c, _ in res] == [0, 0], '%s: server %d %s, clients %s' % (name, rc,
                                                                                         open(err).read(), res))

    def verify(path, what):
        r = subprocess.run([NETLOOM, 'trace', 'info', '--json', path], capture_output=True, text=True, timeout=TMO)
        v = subprocess.run([NETLOOM, 'trace', 'verify', path], capture_output=True, text=True, timeout=TMO)
        expect(r.returncode == 0 and json.loads(r.stdout)['ranks'] == 2 and v.returncode == 0,
               '%s: %s %s' % (what, r.stderr, v.stdout + v.stderr))

    def dots(w):
        return sorted(f for f in os.listdir(w) if f.startswith('.'))

    for case, names in (('two', ('a', 'b')), ('one', ('t', 't'))):
        w = os.path.join(d, case)
        os.mkdir(w)
        recs = [os.path.join(w, n + '.nlt') for n in names]
        srvs = [serve(w, 's%d' % i, recs[i]) for i in range(2)]
        # Both servers' streams, side by side: four, hidden, none shared.
        # A server opens them just after it binds its endpoint, so the
        # socket's file can come first (seen once under load: two of four).
        t0 = time.time()
        made = dots(w)
        while len(made) < 4 and time.time() - t0 < 10:
            time.sleep(0.02)
            made = dots(w)
        expect(len(made) == 4 and all(stream.fullmatch(f) for f in made) and
               not [f for f in os.listdir(w) if 'tmp' in f and not f.startswith('.')],
               '%s: files while both serve: %s' % (case, sorted(os.listdir(w))))
        run(w, case + '0', srvs[0])
        verify(recs[0], '%s: the first server\'s archive' % case)
        if case == 'one':  # the first server's, before the second's replaces it
            os.rename(recs[0], recs[0] + '.first')
            verify(recs[0] + '.first', 'one: the first server\'s archive')
        run(w, case + '1', srvs[1])
        verify(recs[1], '%s: the second server\'s archive' % case)
        expect(dots(w) == [], '%s: left %s' % (case, dots(w)))
    # Killed (SIGKILL: no handler runs): its streams stay, hidden, and the
    # doc's command removes them (docs/live.md, "Recording").
    w = os.path.join(d, 'killed')
    os.mkdir(w)
    p, ep, err = serve(w, 'k', os.path.join(w, 't.nlt'))
    p.kill()
    p.wait(TMO)
    shown = sorted(f for f in os.listdir(w) if not f.startswith('.') and f not in ('k.err', 'k.sock'))
    expect(shown == [] and len(dots(w)) == 2 and all(stream.fullmatch(f) for f in dots(w)),
           'killed: shown %s, hidden %s' % (shown, dots(w)))
    subprocess.run('rm -f .t.nlt.r*.tmp*', shell=True, cwd=w, check=True)
    expect(dots(w) == [], 'killed: after the doc\'s rm, %s' % dots(w))


def case_zmq_on_demand(d):
    """libzmq is opened when the server starts, not linked (adapters/
    zmq_port.h): the binary loads no libzmq, and one that cannot be
    opened is one line naming it, status 2, nothing bound or written."""
    r = subprocess.run(['ldd', NETLOOM], capture_output=True, text=True, timeout=TMO)
    expect(r.returncode == 0 and 'libc.so' in r.stdout, 'ldd: %d %s' % (r.returncode, r.stderr))
    expect('libzmq' not in r.stdout, 'netloom loads libzmq at start:\n%s' % r.stdout)
    bad = os.path.join(d, 'nolibzmq.so')
    env = dict(os.environ, NETLOOM_LIBZMQ=bad)
    for args, made in ((['--ranks', '2', '--listen', 'ipc://%s/nz' % d, '--json', '%s/r.json' % d],
                        ('nz', 'r.json')),
                       (['--curve-keygen', '%s/k' % d], ('k', 'k.pub'))):
        r = subprocess.run([NETLOOM, 'serve'] + args, capture_output=True, text=True, timeout=TMO, env=env)
        expect(r.returncode == 2 and r.stderr.startswith('netloom serve: live: cannot load libzmq (%s: ' % bad) and
               r.stderr.count('\n') == 1 and 'NETLOOM_LIBZMQ' in r.stderr,
               'missing libzmq, %s: %d %r' % (args[0], r.returncode, r.stderr))
        left = [m for m in made if os.path.exists(os.path.join(d, m))]
        expect(left == [], 'missing libzmq, %s: left %s' % (args[0], left))
    # A library that is not libzmq: named, with the function it lacks.
    env['NETLOOM_LIBZMQ'] = 'libm.so.6'
    r = subprocess.run([NETLOOM, 'serve', '--curve-keygen', '%s/k' % d], capture_output=True, text=True,
                       timeout=TMO, env=env)
    expect(r.returncode == 2 and r.stderr == 'netloom serve: live: libm.so.6 has no zmq_ctx_new; expected libzmq 4.1 '
           'or later\n', 'not libzmq: %d %r' % (r.returncode, r.stderr))
    # Named explicitly, the usual library serves as without the variable.
    env['NETLOOM_LIBZMQ'] = 'libzmq.so.5'
    r = subprocess.run([NETLOOM, 'serve', '--curve-keygen', '%s/k2' % d], capture_output=True, text=True,
                       timeout=TMO, env=env)
    expect(r.returncode == 0 and os.path.exists('%s/k2.pub' % d), 'libzmq.so.5 named: %d %r'
           % (r.returncode, r.stderr))


# Rank 0 connects (a long timeout_ms) and blocks in a receive from rank 1,
# which never comes; the test then kills the server (-9), which sends no
# ERROR: the receive must fail within a few heartbeat intervals, saying the
# server is gone, not after timeout_ms with "it may be waiting for other
# ranks; raise timeout_ms" (wrong advice: no timeout brings it back).
GONE = CLIENT_PRE + r"""
c = C(ep, 0, timeout_ms=30000)
print('connected', flush=True)
t0 = time.monotonic()
tryit('recv', c.recv, 1, 0)
print('fast' if time.monotonic() - t0 < 5 else 'slow: %.2f s' % (time.monotonic() - t0))
tryit('close', c.close)
"""
GONE_LINE = ('the server closed the connection (op seq 0): netloom serve exited or was killed; its output says why, '
             'start a new session')


def server_killed(d):
    """A server killed (-9) while a client is blocked in recv, both clients."""
    script = os.path.join(d, 'gone.py')
    open(script, 'w').write(GONE)
    for lang in ('py', 'c'):
        s = Server(d, 2, '-s', 'backend=analytic', name='gone' + lang)
        p = popen([PY, script, PYDIR, LIBCLIENT, lang, s.ep], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        line = p.stdout.readline()
        if line != 'connected\n':
            p.kill()
            fail('%s: %r' % (lang, line + p.stdout.read()))
        time.sleep(0.5)  # the receive posted and waiting
        s.p.kill()
        s.p.wait()
        try:
            out = p.communicate(timeout=TMO)[0]
        except subprocess.TimeoutExpired:
            p.kill()
            fail('%s: a recv on a server killed (-9) hung' % lang)
        want = ['recv refused: ' + GONE_LINE, 'fast',
                'close refused: ' + ('close: no BYE, the connection was unusable: ' + GONE_LINE if lang == 'py'
                                     else 'close failed')]
        expect(p.returncode == 0 and out.splitlines() == want,
               '%s: exit %d\n%s\nexpected\n%s' % (lang, p.returncode, out, '\n'.join(want)))


# Endpoints a user gets wrong (argv[5] is one no server listens on): the
# line says what to do (the no-server line said only 'no WELCOME from EP
# within N ms', the others only libzmq's 'Invalid argument').
CONNECT = CLIENT_PRE + r"""
for e in (ep, 'http://127.0.0.1:5555', '/tmp/nl.sock', 'tcp://localhost', 'udp://127.0.0.1:5555',
          'ipc:///tmp/' + 'a' * 120):
    tryit(e, lambda: C(e, 0, timeout_ms=300))
if lang == 'py':  # what C's types stop (a NULL endpoint has its own line)
    for e in (None, b'ipc:///tmp/nl.sock'):
        tryit(repr(e), lambda: C(e, 0, timeout_ms=300))
    tryit("timeout_ms '300'", lambda: C(ep, 0, timeout_ms='300'))
    # An int file name: open() took it as a file descriptor (here stderr's,
    # which it then closed).
    tryit('curve fd', lambda: C(ep, 0, timeout_ms=300, curve_server=2, curve_key=2))
"""
FORM = ', expected tcp://HOST:PORT or ipc://PATH (as netloom serve --listen gives it)'


def connect_lines(d):
    """No server, a wrong scheme, no port: the same line in both clients."""
    script = os.path.join(d, 'connect.py')
    open(script, 'w').write(CONNECT)
    ep = 'ipc://%s/nobody.sock' % d
    want = [ep + " refused: no WELCOME from '%s' within 300 ms: no server answered there; start netloom serve "
            "--listen on it first, or raise timeout_ms" % ep,
            "http://127.0.0.1:5555 refused: connect 'http://127.0.0.1:5555': Protocol not supported" + FORM,
            "/tmp/nl.sock refused: connect '/tmp/nl.sock': Invalid argument" + FORM,
            "tcp://localhost refused: connect 'tcp://localhost': Invalid argument" + FORM,
            "udp://127.0.0.1:5555 refused: connect 'udp://127.0.0.1:5555': The protocol is not compatible with the "
            "socket type" + FORM,
            # a path no server can bind either: libzmq's word alone before
            "%s refused: connect '%s': File name too long" % (('ipc:///tmp/' + 'a' * 120,) * 2) + FORM]
    # Python: an endpoint not a str raised pyzmq's TypeError (a traceback).
    py_only = ["None refused: connect: endpoint None of type NoneType, expected a str: tcp://HOST:PORT or ipc://PATH",
               "b'ipc:///tmp/nl.sock' refused: connect: endpoint b'ipc:///tmp/nl.sock' of type bytes, expected a str: "
               "tcp://HOST:PORT or ipc://PATH",
               # '300' <= 0 raised TypeError (a traceback)
               "timeout_ms '300' refused: timeout_ms '300', expected -2147483648..2147483647 (0 or less: the "
               "default, 10000)",
               "curve fd refused: CURVE key file 2 of type int, expected a file name (str or os.PathLike)"]
    for lang in ('py', 'c'):
        r = subprocess.run([PY, script, PYDIR, LIBCLIENT, lang, ep], capture_output=True, text=True, timeout=TMO)
        w = want + py_only if lang == 'py' else want
        expect(r.returncode == 0 and r.stdout.splitlines() == w, '%s: exit %d\n%s%s\nexpected\n%s'
               % (lang, r.returncode, r.stdout, r.stderr, '\n'.join(w)))
    # A netloom serve stopped (SIGSTOP) before the client came: the kernel
    # takes the connection, the stopped process completes no handshake.
    # The line said "expected netloom serve there", which it was.
    s = Server(d, 1, '-q', name='sigstopped')
    s.p.send_signal(signal.SIGSTOP)
    try:
        for lang in ('py', 'c'):
            r = subprocess.run([PY, '-c', CLIENT_PRE + "tryit(ep, lambda: C(ep, 0, timeout_ms=300))", PYDIR, LIBCLIENT,
                                lang, s.ep], capture_output=True, text=True, timeout=TMO)
            w = ("%s refused: no WELCOME from '%s' within 300 ms: a process there took the connection but completed "
                 "no ZeroMQ handshake; expected netloom serve there, running (one stopped, SIGSTOP, completes none "
                 "either)" % (s.ep, s.ep))
            expect(r.returncode == 0 and r.stdout.splitlines() == [w],
                   'stopped server, %s: exit %d\n%s%s\nexpected\n%s' % (lang, r.returncode, r.stdout, r.stderr, w))
    finally:
        s.p.send_signal(signal.SIGCONT)
        s.p.terminate()
        s.wait()


# argv[5] 'leave': connect as rank 0 and exit without close; 'wait': rank
# 1, blocked in a receive from rank 0.
LEAVE = CLIENT_PRE + r"""
import os
if sys.argv[5] == 'leave':
    c = C(ep, 0, timeout_ms=20000)
    os._exit(0)
c = C(ep, 1, timeout_ms=20000)
tryit('recv', c.recv, 0, 0)
"""
# Rank 0 runs, then connects again (a program run twice), and rank 1 after
# rank 0's connection is gone and evicted: one line saying what to do.
AGAIN = CLIENT_PRE + r"""
import os
c = C(ep, 0, timeout_ms=20000)
c.close()
tryit('rank 0 again', lambda: C(ep, 0, timeout_ms=20000))
c = C(ep, 1, timeout_ms=20000)
time.sleep(float(sys.argv[5]))  # silent past the server's --timeout-ms: evicted
tryit('rank 1 again', lambda: C(ep, 1, timeout_ms=20000))
"""


def exit_without_close(d):
    """A client exits without close: its peer's line says the rank was
    evicted and why (it said 'a cut trace?', the replay's guess)."""
    script = os.path.join(d, 'leave.py')
    open(script, 'w').write(LEAVE)
    line = ('replay deadlock at t=0.000000000 s: 1 of 2 ranks wait forever (rank 1 in op 0 recv); 1 rank ended '
            'without finalize (rank 0 after 0 ops): it was evicted: silent for more than 1000 ms (heartbeat timeout)')
    for lang in ('py', 'c'):
        s = Server(d, 2, '-s', 'backend=analytic', '--timeout-ms', '1000', name='leave' + lang)
        res = clients([[PY, script, PYDIR, LIBCLIENT, lang, s.ep, role] for role in ('leave', 'wait')], d,
                      'leave' + lang)
        expect(res[0] == (0, '') and res[1] == (0, 'recv refused: server: session deadlocked: %s\n' % line),
               '%s: %s, expected the line %r' % (lang, res, line))
        rc = s.wait()
        err = open(s.err).read()
        expect(rc == 1 and 'netloom serve: %s\n' % line in err, '%s: server %d: %s' % (lang, rc, err))


def join_again(d):
    """A rank that finished or was evicted cannot join again: the line
    says so and what to do (it said only 'HELLO: rank 0 has finished')."""
    script = os.path.join(d, 'again.py')
    open(script, 'w').write(AGAIN)
    for lang in ('py', 'c'):
        s = Server(d, 3, '-s', 'backend=analytic', '--timeout-ms', '500', '--heartbeat-ms', '100', name='again' + lang)
        r = subprocess.run([PY, script, PYDIR, LIBCLIENT, lang, s.ep, '1.5'], capture_output=True, text=True,
                           timeout=TMO)
        once = '; a rank joins a session once, expected a new session (netloom serve) to run it again'
        want = ['rank 0 again refused: server refused HELLO: out of order: connection claiming rank 0: HELLO: rank 0 '
                'has finished' + once,
                'rank 1 again refused: server refused HELLO: out of order: connection claiming rank 1: HELLO: rank 1 '
                'was evicted (silent for more than 500 ms (heartbeat timeout))' + once]
        expect(r.returncode == 0 and r.stdout.splitlines() == want, '%s: exit %d\n%s%s\nexpected\n%s'
               % (lang, r.returncode, r.stdout, r.stderr, '\n'.join(want)))
        s.p.kill()
        s.wait()


def python_client_help():
    """help(netloom_client.Client) documents the class and every call:
    send, isend, recv, irecv, wait, compute and barrier had no docstring."""
    r = subprocess.run([PY, '-c', 'import inspect, sys; sys.path.insert(0, sys.argv[1]); import netloom_client as n\n'
                        'print("Client", bool((n.Client.__doc__ or "").strip()))\n'
                        'for name, f in inspect.getmembers(n.Client, inspect.isfunction):\n'
                        '    if not name.startswith("_") or name == "__init__":\n'
                        '        print(name, bool((f.__doc__ or "").strip()))', PYDIR],
                       capture_output=True, text=True, timeout=TMO)
    got = dict(l.split() for l in r.stdout.splitlines())
    want = ['Client', '__init__', 'allreduce_sum', 'barrier', 'close', 'compute', 'irecv', 'isend', 'recv', 'send',
            'wait', 'waitall']
    expect(r.returncode == 0 and sorted(got) == want and all(v == 'True' for v in got.values()),
           'Python client docstrings: %s %s' % (r.stdout, r.stderr))


def case_client_mistakes(d):
    """What a user's mistakes give in both shipped clients: one line each."""
    need_pyzmq()
    python_client_help()
    server_killed(d)
    connect_lines(d)
    exit_without_close(d)
    join_again(d)


CASES = {n[len('case_'):]: f for n, f in globals().items() if n.startswith('case_')}

if __name__ == '__main__':
    if CASE not in CASES:
        fail('unknown case (valid: %s)' % ', '.join(sorted(CASES)))
    with tempfile.TemporaryDirectory(prefix='nl-live-') as tmp:
        TMP, T0 = tmp, time.monotonic()
        try:
            CASES[CASE](tmp)
        except Exception:  # a traceback exits 1 too: said as a failure, with the outputs
            traceback.print_exc(file=sys.stdout)
            fail('uncaught %s (traceback above)' % sys.exc_info()[0].__name__)
    print('ok %s' % CASE)
