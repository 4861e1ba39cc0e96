#!/usr/bin/env python3
"""Write the installed copy of a docs/examples file (docs/meson.build), its
paths made those of the installed netloom, so that it runs as it says.

usage: install-example.py IN OUT EXAMPLES_DIR SAMPLES_DIR

The examples are written for a clone: paths relative to themselves as the
repository lays them out, and commands in their comments run from its root.
Installed, the examples are in EXAMPLES_DIR (DOCDIR/docs/examples) and the
samples in SAMPLES_DIR (DATADIR/netloom/samples):

- a bundled sample, `../../traces/samples/X`, becomes the installed one,
  `../../../../netloom/samples/X` (both directories are under one datadir);
- in a configuration's comments, `docs/examples/X` is EXAMPLES_DIR/X,
  `traces/samples/X` is SAMPLES_DIR/X, `build/netloom` is `netloom`, and
  "Run from the repository root:" is "Run from any folder:";
- a trace the clone makes in its build (`../../build/X.nlt`: the tiled
  trace of table6-study.ini, 38 MB, too big to install) is read beside the
  installed copy (`X.nlt`), which a user cannot write in: the comment's
  "From the repository root:" commands become what to run first in a folder
  of one's own, the study copied there. An example naming such a trace
  without those commands stops the build, rather than installing an
  example that cannot run and says nothing.
"""
import os
import re
import sys

SAMPLES_REL = "../../traces/samples/"
SAMPLES_INSTALLED_REL = "../../../../netloom/samples/"
BUILD_TRACE = re.compile(r"^(\s*trace\s*=\s*)\.\./\.\./build/(\S+)$")
FROM_ROOT = "From the repository root:"


def command_paths(line, examples, samples, own_name, is_copied):
    """A comment line's command with the installed paths."""
    if is_copied:
        line = line.replace("docs/examples/" + own_name, own_name)
    line = line.replace("docs/examples/", examples + "/")
    line = line.replace("traces/samples/", samples + "/")
    line = re.sub(r"(^|\s)build/netloom(\s|$)", r"\1netloom\2", line)
    return re.sub(r"(^|\s)build/(\S+)", r"\1\2", line)


def rewrite(text, examples, samples, own_name):
    lines = text.split("\n")
    built = sorted({m.group(2) for l in lines for m in [BUILD_TRACE.match(l)] if m})
    if built and not any(FROM_ROOT in l for l in lines):
        raise SystemExit(f"install-example.py: {own_name}: reads {', '.join(built)} from the clone's build "
                         f"but has no '{FROM_ROOT}' comment saying how to make it; expected one")
    out, in_commands, first_command = [], False, True
    for line in lines:
        m = BUILD_TRACE.match(line)
        if m:
            out.append(m.group(1) + m.group(2))
            continue
        is_comment = line.startswith((";", "#"))
        if is_comment and FROM_ROOT in line and built:
            line = line.replace(FROM_ROOT, f"This installed copy reads {', '.join(built)}\n{line[0]} beside it: "
                                           "copy it to a folder you can write in and make the trace there:")
            in_commands = True
        elif in_commands and is_comment and line[1:].startswith("   "):
            line = command_paths(line, examples, samples, own_name, True)
            if first_command:
                line = line[:4] + f"cp {examples}/{own_name} . && " + line[4:]
                first_command = False
        else:
            in_commands = False
            if is_comment:
                line = command_paths(line, examples, samples, own_name, False)
                line = line.replace("Run from the repository root:", "Run from any folder:")
        out.append(line.replace(SAMPLES_REL, SAMPLES_INSTALLED_REL))
    return "\n".join(out)


def main():
    src, dst, examples, samples = sys.argv[1:5]
    text = open(src, encoding="utf-8").read()
    if src.endswith(".ini"):
        text = rewrite(text, examples, samples, os.path.basename(src))
    else:  # tile-trace.py: code, whose comments name no command to run
        text = text.replace(SAMPLES_REL, SAMPLES_INSTALLED_REL)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
