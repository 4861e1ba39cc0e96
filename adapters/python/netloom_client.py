"""Python client for `netloom serve` (protocol v1, docs/zmq-protocol.md).

The same calls as include/netloom/client.h: connect as one rank, then
send/isend, recv/irecv, wait, compute, barrier, allreduce_sum, close. Needs
pyzmq (Debian: python3-zmq). Errors raise NetloomError with one line
(libzmq's errors too). An argument out of range is refused before anything
is sent, and the connection goes on; after any other error (the server's
ERROR, a timeout, a bad frame) the connection is unusable, as in C: every
later call raises at once, and close() frees it and raises.
"""
import errno
import itertools
import os
import stat
import struct
import time

import zmq

VERSION = 1
MAGIC = 0x4C4E
HDR = struct.Struct('<HBBHHIIiiIIQQQ')  # 56 bytes, little-endian
assert HDR.size == 56
ANY = -1
TIME_MAX_PS = 1 << 62  # a rank's virtual time stays within it (docs/zmq-protocol.md, "Time bound")
TAG_MAX = 0x3FFFFFFF
NONBLOCKING = 1

HELLO, SEND, RECV, WAIT, COMPUTE, BARRIER, BYE, HEARTBEAT, WAITALL = 1, 2, 3, 4, 5, 6, 7, 8, 9
LEAN = 2  # HELLO flag
SEND_NOWAIT = 4  # WELCOME flag
JOBINFO = 8  # HELLO: ask for the job's ranks; WELCOME: peer = first rank, tag = ranks
WELCOME, DONE, DELIVER, ERROR = 16, 17, 18, 19
EEVICTED = 9
# ERROR codes and their names, as adapters/proto.h's ZP_ERR_MAP: an error
# from the server reads 'server: NAME: TEXT' in both clients.
ERROR_NAMES = {1: 'malformed frame', 2: 'unsupported version', 3: 'unknown rank', 4: 'rank taken', 5: 'bad token',
               6: 'payload over the limit', 7: 'no HELLO yet', 8: 'bad peer or tag', 9: 'rank evicted',
               10: 'out of order', 11: 'session deadlocked', 12: 'wrong job', 13: 'session stopped'}


def _one_line(raw):
    """raw bytes as one line of text, as the C client writes them
    (nl_str_one_line): valid UTF-8 kept; newline, CR and tab as \\n, \\r,
    \\t; other C0 and C1 controls and bytes of no valid sequence as \\xHH,
    so a server's text cannot break the line or drive the terminal."""
    out = []
    for ch in raw.decode('utf-8', errors='surrogateescape'):
        o = ord(ch)
        if ch in '\n\r\t':
            out.append({'\n': '\\n', '\r': '\\r', '\t': '\\t'}[ch])
        elif 0xdc80 <= o <= 0xdcff:  # a byte of no valid sequence
            out.append('\\x%02x' % (o - 0xdc00))
        elif o < 0x20 or 0x7f <= o < 0xa0:
            out.append(''.join('\\x%02x' % b for b in ch.encode()))
        else:
            out.append(ch)
    return ''.join(out)


def _error_line(code, text):
    """'NAME: TEXT' of an ERROR frame (code, payload bytes), one line."""
    return '%s: %s' % (ERROR_NAMES.get(code, 'unknown error'), _one_line(bytes(text)))


class NetloomError(Exception):
    pass


U32, U64 = (1 << 32) - 1, (1 << 64) - 1


def _int(name, v, lo, hi, extra=''):
    """v as an int in lo..hi, else NetloomError naming the argument."""
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise NetloomError('%s %r, expected %d..%d%s' % (name, v, lo, hi, extra))
    return v


class Status:
    """What a completed receive got (virtual times in ps)."""

    def __init__(self, source, tag, data, t_sent, t_arrived, t_done):
        self.source, self.tag, self.data = source, tag, data
        self.t_sent_ps, self.t_arrived_ps, self.t_done_ps = t_sent, t_arrived, t_done


KEY_LINE = 255  # bytes of a key file's line before its '\n' (ZP_KEY_LINE - 1 in adapters/curve_keys.h)
Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#'


def _z85_why(v):
    """Why v is not a 40-character Z85 key (None if it is), quoting none of
    it: v may be a secret key. As zp_curve_why in adapters/curve_keys.c."""
    if len(v) != 40:
        return '%d characters, not 40' % len(v)
    for g in range(0, 40, 5):
        x = 0
        for i in range(g, g + 5):
            if v[i] not in Z85:
                return "character %d is outside Z85's alphabet" % (i + 1)
            x = x * 85 + Z85.index(v[i])
        if x > U32:
            return 'characters %d..%d decode past 32 bits' % (g + 1, g + 5)
    return None


def read_curve_key(path, secret=False):
    """(public, secret or None) from a netloom CURVE key file, Z85 bytes;
    with secret=True the secret key must be there, and be the public key's
    pair; with secret=False the file is the server's public key file, and
    a secret key there is refused. Refused with the C client's words (adapters/curve_keys.c), which
    never quote a secret key."""
    # open() takes an int as a file descriptor: curve_key=3 read (and then
    # closed) whatever fd 3 was, where C's const char * takes a name only.
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise NetloomError('CURVE key file %r of type %s, expected a file name (str or os.PathLike)'
                           % (path, type(path).__name__))
    # A regular file only, as the C client (zp_key_open): a FIFO blocked
    # open() until a writer came, and /dev/zero was read as one line until
    # memory ran out. O_NONBLOCK opens a FIFO at once, to be refused.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise NetloomError('%s: cannot open CURVE key file: %s' % (path, e.strerror)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = ('a directory' if stat.S_ISDIR(mode) else 'a FIFO' if stat.S_ISFIFO(mode) else 'a socket'
                if stat.S_ISSOCK(mode) else 'a character device' if stat.S_ISCHR(mode) else 'a block device'
                if stat.S_ISBLK(mode) else 'not a file')
        raise NetloomError('%s: is %s, not a CURVE key file; expected a regular file' % (path, kind))
    f = os.fdopen(fd, 'rb')
    keys, lines = {}, {}
    with f:
        for n in itertools.count(1):
            # At most a line's first 256 bytes, as zp_key_line: a huge
            # one-line file is refused without being read whole.
            raw = f.readline(KEY_LINE)
            if not raw:
                break
            if b'\0' in raw:
                raise NetloomError("CURVE key file '%s' line %d: unexpected NUL byte; expected a text file" % (path, n))
            if len(raw) == KEY_LINE and not raw.endswith(b'\n') and f.peek(1)[:1] not in (b'', b'\n'):
                raise NetloomError("CURVE key file '%s' line %d: longer than %d bytes; expected one key (40 characters) "
                                   "a line" % (path, n, KEY_LINE))
            if len(raw) == KEY_LINE and not raw.endswith(b'\n'):
                f.read(1)  # the line's '\n', as zp_key_line reads it
            line = raw.decode(errors='replace')  # bytes that are no text: no Z85 key either
            name, eq, val = line.partition('=')
            name, val = name.strip(), val.strip()
            if not eq or name not in ('public', 'secret'):
                continue  # comments and anything else
            if name == 'secret' and not secret:
                # Only the server's file is read for its public key alone:
                # its key pair (server.key for server.key.pub) was taken.
                pub = os.fspath(path)[-4:] in ('.pub', b'.pub')
                raise NetloomError("CURVE server key file '%s' holds a secret key (line %d); expected the server's "
                                   "public key file (%s): a client never needs the server's secret"
                                   % (path, n, 'the .pub --curve-keygen wrote' if pub else '%s.pub' % path))
            why = _z85_why(val)
            if why and name == 'secret':
                raise NetloomError("CURVE key file '%s' line %d: malformed secret key (%s), expected 40 Z85 characters"
                                   % (path, n, why))
            if why:
                raise NetloomError("CURVE key file '%s' line %d: public key '%.48s' (%s), expected 40 Z85 characters"
                                   % (path, n, val, why))
            keys[name], lines[name] = val.encode(), n
    if 'public' not in keys or (secret and 'secret' not in keys):
        raise NetloomError("CURVE key file '%s': no %s line, expected 'public = KEY'%s"
                           % (path, 'secret' if 'public' in keys else 'public', " and 'secret = KEY'" if secret else ''))
    if secret and zmq.has('curve') and zmq.curve_public(keys['secret']) != keys['public']:
        raise NetloomError("CURVE key file '%s': the public key (line %d) is not the secret key's (line %d), expected "
                           "the pair --curve-keygen wrote" % (path, lines['public'], lines['secret']))
    return keys['public'], keys.get('secret') if secret else None


class Client:
    """One rank of a `netloom serve` session (C: nl_client). Virtual times
    are in picoseconds; now_ps is the time of the server's last answer
    (set by blocking recv, wait, waitall, barrier, close and
    allreduce_sum's receives; by a blocking send in paced mode only)."""

    def __init__(self, endpoint, rank, job=1, token=0, timeout_ms=10000, curve_server=None, curve_key=None):
        """Connect to endpoint (tcp://127.0.0.1:PORT, ipc://PATH) as rank of
        job (0..2^32-1) with the rank's token (0 when the server sets
        none). Waits up to timeout_ms (0 or less: 10000) for the WELCOME,
        failing sooner when the handshake is refused or the server closes
        the connection; the same bound applies later to any wait with no
        frame from the server. curve_server: the server's .pub file,
        curve_key: this client's key file (public + secret); both or
        neither (docs/live.md "Encryption"). Sets size (the session's
        ranks), job_first and job_size (this job's ranks) and max_payload."""
        # pyzmq takes a str only: anything else raised its TypeError, a
        # traceback, where C refuses a NULL endpoint with one line.
        if not isinstance(endpoint, str):
            raise NetloomError('connect: endpoint %r of type %s, expected a str: tcp://HOST:PORT or ipc://PATH'
                               % (endpoint, type(endpoint).__name__))
        self.rank = _int('rank', rank, 0, U32)
        _int('job', job, 0, U32)  # HELLO's job field is 32 bits
        _int('token', token, 0, U64)
        # timeout_ms <= 0 (or None) means the default, 10000 ms, as in C's
        # int; checked first ('5' <= 0 raised TypeError, a traceback).
        if timeout_ms is not None:
            _int('timeout_ms', timeout_ms, -2**31, 2**31 - 1, ' (0 or less: the default, 10000)')
        timeout_ms = 10000 if timeout_ms is None or timeout_ms <= 0 else timeout_ms
        self.seq = 0
        # Virtual time (ps) of the server's last DONE: as nl_client_now_ps,
        # set by blocking recv, wait, waitall, barrier, close and
        # allreduce_sum's receives; by a blocking send in paced mode only.
        self.now_ps = 0
        self.done_seq = 0
        self.timeout_ms = timeout_ms
        self.hb_ms = 200
        self._pending = {}  # recv seq -> Status or None
        self._caps = {}  # recv seq -> capacity (bytes)
        self._anytag = set()  # seqs of pending receives posted with tag ANY
        # The requests a wait may name, as the server keeps them: isends and
        # irecvs no wait has named yet. Any other is refused here, before
        # the server would answer ERROR 10 and end the connection.
        self._open = set()
        self._err = None  # the error that made the connection unusable
        self._ctx = self._sock = self._mon = None
        try:
            self._ctx = zmq.Context()
            self._sock = self._ctx.socket(zmq.DEALER)
            self._sock.setsockopt(zmq.LINGER, 1000)
            self._sock.setsockopt(zmq.IPV6, 1)  # tcp://[::1]:PORT and other IPv6 addresses too
            # A server gone (or not reading) fills the send queue: a send
            # then fails after timeout_ms instead of blocking for ever.
            self._sock.setsockopt(zmq.SNDTIMEO, timeout_ms)
            if curve_server or curve_key:
                if not curve_server or not curve_key:
                    raise NetloomError("CURVE: expected both the server's public key file and this client's key file")
                # The server's file first, as the C client reads them.
                self._sock.curve_serverkey = read_curve_key(curve_server)[0]
                pub, sec = read_curve_key(curve_key, secret=True)
                self._sock.curve_publickey, self._sock.curve_secretkey = pub, sec
            self._watch()
            try:
                self._sock.connect(endpoint)
            except zmq.ZMQError as e:
                # libzmq's word alone ("Invalid argument") does not say what
                # an endpoint looks like, as the C client says it.
                form = e.errno in (zmq.EINVAL, zmq.EPROTONOSUPPORT, zmq.ENOCOMPATPROTO, errno.ENAMETOOLONG)
                raise NetloomError("connect '%s': %s%s" % (endpoint, e, ', expected tcp://HOST:PORT or ipc://PATH '
                                                          '(as netloom serve --listen gives it)' if form else ''))
            self._last_tx = 0.0
            # LEAN (2): no DONE for non-blocking posts and COMPUTE, never awaited;
            # JOBINFO (8): the job's ranks, where allreduce_sum runs.
            self._send(HELLO, flags=LEAN | JOBINFO, aux=job, a=token)
            self._await_welcome(endpoint, timeout_ms, curve_server is not None)
            h, pay = self._recv_frames()
            if h[2] == ERROR:
                raise NetloomError('server refused HELLO: %s' % _error_line(h[8], pay))
            if h[2] != WELCOME:
                raise NetloomError('bad answer to HELLO: type %d' % h[2])
            # As the C client (adapters/proto.c, client_connect.c): 0 ranks
            # made a ring's modulo raise ZeroDivisionError, and a WELCOME
            # for another rank ran the client as that rank.
            if h[9] == 0:
                raise NetloomError("bad answer to HELLO: WELCOME: field 'aux' (ranks) is 0, expected 1 or more")
            if h[5] != rank:
                raise NetloomError('bad answer to HELLO: WELCOME for rank %d, expected %d' % (h[5], rank))
            if not h[3] & JOBINFO and (h[7] or h[8]):
                raise NetloomError('bad answer to HELLO: WELCOME: job ranks %d+%d without flag 0x%x, expected 0'
                                   % (h[7], h[8], JOBINFO))
            if h[3] & JOBINFO and (h[7] < 0 or h[8] < 1 or h[7] + h[8] > h[9]):
                raise NetloomError('bad answer to HELLO: WELCOME: job ranks %d+%d, expected a range within 0..%d'
                                   % (h[7], h[8], h[9]))
        except (NetloomError, zmq.ZMQError, OSError) as e:
            self._drop()
            if isinstance(e, NetloomError):
                raise
            raise NetloomError(str(e)) from None
        self.size, self.max_payload, self.hb_ms = h[9], h[11], max(1, min(h[12], 60000))
        self.send_nowait = bool(h[3] & SEND_NOWAIT)  # lock-step: a blocking send gets no DONE
        # The world ranks of this rank's job: job_first .. job_first + job_size - 1.
        self.job_first, self.job_size = (h[7], h[8]) if h[3] & JOBINFO else (0, self.size)

    # --- frames
    # The connection events a client acts on: before the WELCOME, a
    # handshake refused or a connection the server closed says why at once
    # (_hello_event), where the connect timeout would only say that no
    # server answered; from the WELCOME on, the server closing its end
    # (_server_gone). As the C client.
    _MON_EVENTS = (zmq.EVENT_CONNECTED | zmq.EVENT_DISCONNECTED | zmq.EVENT_HANDSHAKE_SUCCEEDED
                   | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
                   | zmq.EVENT_HANDSHAKE_FAILED_AUTH)
    # Why no WELCOME came, by how far the connection got (the C client's
    # cl_no_welcome_why).
    _NO_WELCOME_WHY = {
        'none': 'no server answered there; start netloom serve --listen on it first, or raise timeout_ms',
        'connected': 'a process there took the connection but completed no ZeroMQ handshake; expected netloom '
                     'serve there, running (one stopped, SIGSTOP, completes none either)',
        'shook': 'the server there completed the handshake but did not answer HELLO (stopped or stuck?); its '
                 'output says why, or raise timeout_ms'}

    def _watch(self):
        """Watch the socket's connection events, from before it connects so
        none is missed; without a monitor only the timeouts tell."""
        try:
            self._mon = self._sock.get_monitor_socket(self._MON_EVENTS)
        except zmq.ZMQError:
            self._mon = None

    def _mon_event(self):
        """The next monitor event as (event, value), or None when there is none."""
        try:
            ev = self._mon.recv_multipart(zmq.NOBLOCK)  # u16 event + u32 value, then the endpoint
        except zmq.ZMQError:
            return None
        return struct.unpack('<HI', ev[0][:6]) if len(ev[0]) >= 6 else (0, 0)

    def _await_welcome(self, endpoint, timeout_ms, curve):
        """Wait for the HELLO's answer; fail at once on a handshake the
        server refused or a connection it closed after the handshake, as
        the C client's cl_hello_event."""
        poller = zmq.Poller()
        poller.register(self._sock, zmq.POLLIN)
        if self._mon is not None:
            poller.register(self._mon, zmq.POLLIN)
        state = {'reach': 'none'}
        end = time.monotonic() + timeout_ms / 1000.0
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise NetloomError("no WELCOME from '%s' within %d ms: %s"
                                   % (endpoint, timeout_ms, self._NO_WELCOME_WHY[state['reach']]))
            ready = dict(poller.poll(max(1, int(left * 1000))))
            # Frames first: a WELCOME or ERROR that came before the server
            # closed the connection says more than the closing.
            if self._sock in ready:
                return
            while self._mon is not None:
                got = self._mon_event()
                if got is None:
                    break
                self._hello_event(endpoint, curve, got[0], got[1], state)

    @staticmethod
    def _hello_event(endpoint, curve, ev, value, state):
        """Note in state['reach'] how far the connection got (none,
        connected: a process took it, shook: a handshake completed); raise
        NetloomError for what no retry mends (the lines of the C client)."""
        if ev == zmq.EVENT_CONNECTED and state['reach'] == 'none':
            state['reach'] = 'connected'
        if ev == zmq.EVENT_HANDSHAKE_SUCCEEDED:
            state['reach'] = 'shook'
        if ev == zmq.EVENT_DISCONNECTED and state['reach'] == 'shook':
            raise NetloomError("the server at '%s' closed the connection before answering HELLO: netloom serve "
                               "stopped or was killed; its output says why, start a new session" % endpoint)
        if ev == zmq.EVENT_HANDSHAKE_FAILED_AUTH:  # value: the ZAP status code
            raise NetloomError("the server at '%s' refused this client's CURVE key (ZAP status %d): add the key "
                               "file's public key (its .pub) to the server's --curve-allow file" % (endpoint, value))
        if ev == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL and not curve:
            if value == zmq.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH:
                raise NetloomError("the server at '%s' requires CURVE (netloom serve --curve-key): give this client "
                                   "the server's public key file and a key pair of its own (docs/live.md, "
                                   "Encryption)" % endpoint)
            raise NetloomError("the handshake with '%s' failed (libzmq protocol error 0x%x): expected netloom "
                               "serve there" % (endpoint, value))
        if ev in (zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL, zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL):
            if curve:
                raise NetloomError("the CURVE handshake with '%s' failed: the server there does not use CURVE, or "
                                   "its key is not the one in the server public key file given (expected the .pub "
                                   "of its --curve-key)" % endpoint)
            # A client without CURVE on a CURVE server gets this, as often
            # as the mechanism mismatch, when the server closes first (EPIPE).
            raise NetloomError("the handshake with '%s' failed (libzmq gives no detail): expected netloom serve "
                               "there; one started with --curve-key refuses a client without the server's public "
                               "key file and a key pair of its own (docs/live.md, Encryption)" % endpoint)

    def _server_gone(self):
        """Whether the server's end of the connection closed: a server
        killed (SIGKILL) sends no ERROR, and would otherwise be taken for
        one waiting for other ranks until timeout_ms. Called only after a
        poll interval with no frame, so every frame it sent has been taken."""
        gone = False
        while self._mon is not None:
            got = self._mon_event()
            if got is None:
                break
            gone = gone or got[0] == zmq.EVENT_DISCONNECTED
        return gone

    def _free(self, linger=None):
        """Close the sockets and the context (linger 0: drop unsent frames)."""
        if self._mon is not None:
            self._sock.disable_monitor()
            self._mon.close(linger=0)
        if self._sock is not None:
            self._sock.close(linger=linger)
        if self._ctx is not None:
            self._ctx.term()
        self._sock = self._ctx = self._mon = None

    def _drop(self):
        """Free the socket at once, dropping unsent frames (linger 0)."""
        self._free(linger=0)

    def _broken(self, msg):
        """The connection is unusable from now on: NetloomError(msg)."""
        self._err = msg
        return NetloomError(msg)

    def _send(self, typ, flags=0, seq=0, peer=0, tag=0, aux=0, a=0, b=0, c=0, payload=None):
        hdr = HDR.pack(MAGIC, VERSION, typ, flags, 0, self.rank, seq, peer, tag, aux, 0, a, b, c)
        try:
            if payload is None:
                self._sock.send(hdr)
            else:
                self._sock.send_multipart([hdr, payload])
        except zmq.Again:
            raise self._broken('server not reading for %d ms (op seq %d): it is gone or stuck'
                               % (self.timeout_ms, seq)) from None
        except zmq.ZMQError as e:
            raise self._broken('send: %s' % e) from None
        self._last_tx = time.monotonic()

    def _recv_frames(self):
        try:
            parts = self._sock.recv_multipart()
        except zmq.ZMQError as e:
            raise self._broken('receive: %s' % e) from None
        if len(parts) > 2:  # never from a v1 server, as the C client says
            raise self._broken('bad frame from the server: message of %d frames, expected a header frame and at '
                               'most one payload frame' % len(parts))
        if len(parts[0]) != HDR.size:
            raise self._broken('bad frame from the server: header of %d bytes' % len(parts[0]))
        h = HDR.unpack(parts[0])
        if h[0] != MAGIC or h[1] != VERSION:
            raise self._broken('bad frame from the server: magic/version')
        return h, (parts[1] if len(parts) > 1 else b'')

    def _handle(self):
        h, pay = self._recv_frames()
        typ = h[2]
        if typ == DONE:
            # A DONE for an op not sent yet would pass ops not taken.
            if h[6] >= self.seq:
                raise self._broken('bad frame from the server: DONE for seq %d, expected an op sent (seq below %d)'
                                   % (h[6], self.seq))
            self.now_ps = h[11]
            self.done_seq = h[6] + 1
        elif typ == DELIVER:
            if h[6] not in self._pending:
                raise self._broken('DELIVER for seq %d, which is no receive of ours' % h[6])
            self._pending[h[6]] = Status(h[7], h[8], bytes(pay), h[11], h[12], h[13])
        elif typ == ERROR:
            if h[8] == EEVICTED and h[5] != self.rank:
                return  # a peer left
            raise self._broken('server: %s' % _error_line(h[8], pay))

    def _await(self, seq):
        quiet = time.monotonic()
        while self.done_seq <= seq:
            try:
                ready = self._sock.poll(self.hb_ms)
            except zmq.ZMQError as e:
                raise self._broken('poll: %s' % e) from None
            if ready:
                quiet = time.monotonic()
                self._handle()
            elif self._server_gone():
                raise self._broken('the server closed the connection (op seq %d): netloom serve exited or was '
                                   'killed; its output says why, start a new session' % seq)
            elif (time.monotonic() - quiet) * 1000 > self.timeout_ms:
                raise self._broken('no answer from the server for %d ms (op seq %d): it may be waiting for other '
                                   'ranks; raise timeout_ms' % (self.timeout_ms, seq))
            if (time.monotonic() - self._last_tx) * 1000 >= self.hb_ms:
                self._send(HEARTBEAT)

    def _usable(self):
        if self._sock is None:
            raise NetloomError('the connection is closed')
        if self._err is not None:
            raise NetloomError(self._err)

    def _op(self, typ, **kw):
        """Send op typ with the next seq; the seq is taken only once the
        frame is out (arguments are checked before)."""
        self._usable()
        seq = self.seq
        self._send(typ, seq=seq, **kw)
        self.seq += 1
        return seq

    # --- calls
    def _payload(self, tag, data, internal):
        """The SEND payload as bytes, refused here as the C client refuses
        it: over WELCOME's limit, libzmq's size cap on the server would drop
        the whole connection, and the next frame would read as one from a
        connection that never said HELLO. Nothing is sent, no seq taken."""
        if not internal:
            _int('tag', tag, 0, TAG_MAX)
        # Bytes-like only (the buffer protocol), never converted: bytes()
        # would make 1000 zero bytes of the int 1000 and a payload of a
        # list or range of small ints, and raise ValueError past 255.
        try:
            if not isinstance(data, bytes):
                data = memoryview(data).tobytes()
        except TypeError:
            raise NetloomError('payload of type %s, expected bytes-like (bytes, bytearray, memoryview or another '
                               'buffer)' % type(data).__name__) from None
        if len(data) > self.max_payload:
            raise NetloomError('payload of %d byte%s, the server takes at most %d'
                               % (len(data), '' if len(data) == 1 else 's', self.max_payload))
        return data

    def _dst(self, dst):
        if isinstance(dst, bool) or not isinstance(dst, int) or not 0 <= dst < self.size:
            raise NetloomError('dst %r, expected 0..%d' % (dst, self.size - 1))

    def _recv_args(self, src, tag, cap):
        """Check a receive's arguments as the wire carries them."""
        if src != ANY:
            _int('src', src, 0, self.size - 1, ' or ANY')
        if tag != ANY:  # TAG_MAX + 1 and above are the library's (allreduce_sum)
            _int('tag', tag, 0, TAG_MAX, ' or ANY')
        _int('cap', cap, 0, U64)

    def _post_recv(self, src, tag, cap, flags):
        seq = self._op(RECV, flags=flags, peer=src, tag=tag, a=cap)
        self._pending[seq], self._caps[seq] = None, cap
        if flags & NONBLOCKING:
            self._open.add(seq)
        if tag == ANY:
            self._anytag.add(seq)
        return seq

    def isend(self, dst, tag, data, _internal=False):
        """Non-blocking send (MPI_Isend) of bytes data to rank dst with tag
        (0..TAG_MAX); returns the request for wait or waitall. data is
        copied at once."""
        self._dst(dst)
        data = self._payload(tag, data, _internal)
        seq = self._op(SEND, flags=NONBLOCKING, peer=dst, tag=tag, payload=data)
        self._open.add(seq)
        return seq

    def send(self, dst, tag, data, _internal=False):
        """Blocking send (MPI_Send) of bytes data to rank dst with tag
        (0..TAG_MAX): returns when the send completed in virtual time."""
        self._dst(dst)
        data = self._payload(tag, data, _internal)
        seq = self._op(SEND, peer=dst, tag=tag, payload=data)
        if not self.send_nowait:
            self._await(seq)

    def irecv(self, src=ANY, tag=ANY, cap=1 << 20):
        """Non-blocking receive (MPI_Irecv) of at most cap bytes from rank
        src with tag (either may be ANY); returns the request, whose wait
        gives the Status."""
        self._recv_args(src, tag, cap)
        return self._post_recv(src, tag, cap, NONBLOCKING)

    def recv(self, src=ANY, tag=ANY, cap=1 << 20, _internal=False):
        """Blocking receive (MPI_Recv) of at most cap bytes from rank src
        with tag (either may be ANY): a Status (source, tag, data,
        t_sent_ps, t_arrived_ps, t_done_ps). A longer message raises
        (MPI's truncation)."""
        if not _internal:
            self._recv_args(src, tag, cap)
        seq = self._post_recv(src, tag, cap, 0)
        self._await(seq)
        return self._take(seq)

    def _take(self, seq):
        """A completed receive's Status; a message over the receive's
        capacity raises, as the C client does (the receive is gone)."""
        st = self._pending.pop(seq, None)
        cap = self._caps.pop(seq, None)
        self._anytag.discard(seq)
        if st is None:
            raise NetloomError('receive %d completed without its payload' % seq)
        if len(st.data) > cap:
            raise NetloomError('message of %d bytes truncated: the receive had room for %d' % (len(st.data), cap))
        return st

    def _req(self, req, what):
        """A request a wait may name: started, and open (the server's
        rule, docs/zmq-protocol.md). Refused here otherwise, nothing sent."""
        if isinstance(req, bool) or not isinstance(req, int) or not 0 <= req < self.seq:
            raise NetloomError('%s: request %r was never started' % (what, req))
        if req not in self._open:
            raise NetloomError('%s: request %d is not pending (waited for already, or not an isend or irecv), '
                               'expected an isend or irecv not waited for yet' % (what, req))

    def wait(self, req):
        """Wait for a request of isend or irecv: the receive's Status, None
        for a send. A request is pending until a wait names it; any other
        is refused here, nothing sent."""
        self._usable()
        self._req(req, 'wait')
        seq = self._op(WAIT, aux=req)
        self._open.discard(req)
        self._await(seq)
        return self._take(req) if req in self._pending else None

    def waitall(self, reqs):
        """Wait for several requests (at most 4096) in one round trip;
        statuses (None for sends). None: returns [] at once, nothing sent."""
        reqs = list(reqs)
        self._usable()
        if not reqs:
            return []
        if len(reqs) > 4096:
            raise NetloomError('waitall: %d requests, expected 0..4096' % len(reqs))
        for r in reqs:
            self._req(r, 'waitall')
        srt = sorted(reqs)
        twice = [a for a, b in zip(srt, srt[1:]) if a == b]
        if twice:
            raise NetloomError('waitall: request %d named twice, expected distinct requests' % twice[0])
        seq = self._op(WAITALL, payload=struct.pack('<%dI' % len(reqs), *reqs))
        self._open.difference_update(reqs)
        self._await(seq)
        out, first = [], None
        for r in reqs:  # take them all, then raise the first error
            try:
                out.append(self._take(r) if r in self._pending else None)
            except NetloomError as e:
                out.append(None)
                first = first or e
        if first:
            raise first
        return out

    def compute(self, duration_ps):
        """Spend duration_ps (0..2^62) of virtual time computing; does not
        wait for the server."""
        if isinstance(duration_ps, bool) or not isinstance(duration_ps, int):
            raise NetloomError('compute: duration %r, expected an integer number of ps' % (duration_ps,))
        if duration_ps < 0:  # the wire field is unsigned: not "at most 2^62" but below 0
            raise NetloomError('compute: duration %d ps, expected 0..2^62 = %d ps' % (duration_ps, TIME_MAX_PS))
        if duration_ps > TIME_MAX_PS:  # the server would refuse it; C says the same
            raise NetloomError('compute: duration %d ps, expected at most 2^62 = %d ps' % (duration_ps, TIME_MAX_PS))
        self._op(COMPUTE, a=duration_ps)

    def barrier(self):
        """Wait until every rank of this rank's job (the session without
        --jobs) has entered the barrier (MPI_Barrier, in virtual time)."""
        self._await(self._op(BARRIER))

    def allreduce_sum(self, values):
        """Sum of float lists over the ranks of this rank's job (all ranks
        without --jobs): its first rank reduces in rank order, then sends
        the sum back. Same ops and sizes as nl_client_allreduce_sum."""
        self._usable()
        fmt = '<%dd' % len(values)
        size = struct.calcsize(fmt)
        # Refused on every rank alike, before any message, so none waits.
        if size > self.max_payload:
            n = len(values)
            raise NetloomError('allreduce_sum: %d value%s (8 bytes%s), the server takes at most %d byte%s'
                               % (n, '' if n == 1 else 's', '' if n == 1 else ' each', self.max_payload,
                                  '' if self.max_payload == 1 else 's'))
        # The wire's tag ANY matches the library's tag too: an earlier
        # receive with tag ANY would take the allreduce's message.
        if self._anytag:
            raise NetloomError("allreduce_sum: receive %d (tag ANY) is still pending and would take the "
                               "allreduce's message; wait for it first" % min(self._anytag))
        tag = TAG_MAX + 1
        root, end = self.job_first, self.job_first + self.job_size
        if self.rank == root:
            acc = list(values)
            for r in range(root + 1, end):
                got = struct.unpack(fmt, self.recv(r, tag, cap=size, _internal=True).data)
                acc = [x + y for x, y in zip(acc, got)]
            for r in range(root + 1, end):
                self.send(r, tag, struct.pack(fmt, *acc), _internal=True)
            return acc
        self.send(root, tag, struct.pack(fmt, *values), _internal=True)
        return list(struct.unpack(fmt, self.recv(root, tag, cap=size, _internal=True).data))

    def close(self):
        """Say BYE and free. A second close() does nothing. After an error
        that made the connection unusable it frees at once and raises that
        error (C: nl_client_close returns -1)."""
        if self._sock is None:
            return
        if self._err is not None:
            self._drop()
            raise NetloomError('close: no BYE, the connection was unusable: %s' % self._err)
        try:
            self._await(self._op(BYE))
        except NetloomError:
            self._drop()
            raise
        self._free()
