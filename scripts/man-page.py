#!/usr/bin/env python3
"""Make netloom(1): help2man's page from `netloom --help`, with the parts of
the help text the page's own sections say better taken out of its
DESCRIPTION (docs/meson.build runs it at build time):

- the "usage:" line (SYNOPSIS gives it);
- the "Exit status:" paragraph (the EXIT STATUS section, from
  docs/netloom.h2m.in, lists each status);
- the "installed by 'meson install'" block (FILES and EXAMPLES give the
  same paths, which help2man also mangles in running text:
  ".../lammps\\-lj\\-16\\/\\fP.nlt").

  scripts/man-page.py OUTPUT HELP2MAN [HELP2MAN'S ARGUMENTS...]

A block not found is an error (exit 1): the help text changed, and this
script must say what to take out of it now, rather than let the page
repeat itself again. OUTPUT is written whole or not at all.
"""
import os
import subprocess
import sys


def fail(msg):
    print('scripts/man-page.py: %s' % msg, file=sys.stderr)
    sys.exit(1)


def cut(lines, start, is_end, what):
    """lines without the block from the first line for which start is true
    to the line before the first later one for which is_end is true."""
    for i, line in enumerate(lines):
        if start(line):
            j = i + 1
            while j < len(lines) and not is_end(lines[j]):
                j += 1
            return lines[:i] + lines[j:]
    fail("help2man's page has no %s in its DESCRIPTION: update this script to the help text" % what)


def tidy(page):
    lines = page.split('\n')
    try:
        d0 = lines.index('.SH DESCRIPTION')
    except ValueError:
        fail("help2man's page has no DESCRIPTION section")
    d1 = next((i for i in range(d0 + 1, len(lines)) if lines[i].startswith('.SH ')), len(lines))
    desc = lines[d0 + 1:d1]
    # The usage line and the paragraph break after it.
    desc = cut(desc, lambda s: s.startswith('usage: netloom'), lambda s: not s.startswith(('usage:', '.PP')),
               "'usage:' line")
    # The exit statuses: their paragraph, up to the next paragraph or subsection.
    desc = cut(desc, lambda s: s.startswith('Exit status:'), lambda s: s.startswith(('.PP', '.SS', '.TP')),
               "'Exit status:' paragraph")
    # The paragraph break left before it, when one now stands before another.
    desc = [s for i, s in enumerate(desc) if not (s == '.PP' and i + 1 < len(desc) and desc[i + 1] in ('.PP', '.SS'))]
    # The installed paths: the subsection to the DESCRIPTION's end.
    desc = cut(desc, lambda s: s.startswith('.SS "installed by'), lambda s: False, "'installed by' block")
    while desc and desc[-1] == '.PP':
        desc.pop()
    return '\n'.join(lines[:d0 + 1] + desc + lines[d1:])


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().split('\n\n')[1].strip(), file=sys.stderr)
        sys.exit(2)
    out, cmd = sys.argv[1], sys.argv[2:]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail('%s exited with status %d: %s' % (cmd[0], r.returncode, r.stderr.strip()))
    tmp = out + '.tmp'
    with open(tmp, 'w') as f:
        f.write(tidy(r.stdout))
    os.replace(tmp, out)


main()
