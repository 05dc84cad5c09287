#!/usr/bin/env python3
"""Runs every command of the workshop (docs/workshop/) in order and checks
each output against what the text next to it claims.

The course marks what this runs (docs/workshop/instructor.md, "How the course
is tested"):

  ```sh workshop            a step: its commands run in one bash per exercise
  ...                       (exports carry over); every command must exit 0,
  ```                       the last one as <!-- exit: N --> says (default 0)
  <!-- expect: REGEX -->    the step's output (stdout + stderr) has a match
  <!-- expect-not: REGEX -->  ... and has none of this
  ```text output            every line (but "..." and blank ones) appears in
  ...                       the output, in this order, as part of a line
  ```

A step whose commands all start with scripts/workshop-node.sh runs inside
the emulated NUMA node: all such steps of the course (one shape) in one boot,
in the order of the text, before the host steps (no node step may need a host
step's output; host steps may read node outputs). Each exercise gets its own
WS folder. The host steps run whatever became of the node.

  course.py [--node HOW] DOCS_DIR WORK_DIR [FILE.md ...]
  --node boot     boot the node for its steps (default)
  --node inside   run only the node steps, here: this is the node (the CTest
                  run: tests/numa/guest_course.sh in the snc2 node's one boot)
  --node done     the node steps ran already into WORK_DIR: judge them, no boot
  --node none     this host cannot run the node: its steps are reported as
                  not run, the host steps run and are judged
(steps run in the project root: BINDLAB_SOURCE_DIR, else DOCS_DIR/../..)
Exit status: 0 every step as the text says; 1 not (a node that fails to boot
fails its steps); 77 only when every host step passed and the node steps did
not run for a missing host prerequisite (--node none, or exit 125 of
scripts/workshop-node.sh).
"""
import os
import re
import shlex
import subprocess
import sys

NODE = "scripts/workshop-node.sh"


class Step:
    def __init__(self, doc, line, commands):
        self.doc, self.line, self.commands = doc, line, commands
        self.expect, self.expect_not, self.output, self.exit = [], [], [], 0
        self.node = all(c.startswith(NODE + " ") for c in commands)
        if not self.node and any(NODE in c for c in commands):
            raise SystemExit(f"{self.where()}: a step mixes node and host commands")

    def where(self):
        return f"{os.path.basename(self.doc)}:{self.line}"


def complete(text):
    """Whether bash parses TEXT as whole commands (a loop or a quoted
    string over several lines is one command)."""
    return subprocess.run(["bash", "-n", "-c", text], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def commands_of(block):
    """The block's commands: lines joined until bash can parse them (so a
    continued line, a loop or a multi-line string is one command); blank
    and comment-only lines dropped."""
    out, cur = [], []
    for raw in block:
        cur.append(raw.rstrip("\n"))
        text = "\n".join(cur)
        if text.endswith("\\") or not complete(text):
            continue
        if text.strip() and not text.lstrip().startswith("#"):
            out.append(text.strip())
        cur = []
    if cur:
        raise SystemExit("a command block ends inside a command: " + "\n".join(cur))
    return out


def parse(doc):
    steps, lines, i = [], open(doc, encoding="utf-8").read().split("\n"), 0
    comment = re.compile(r"<!--\s*(expect|expect-not|exit):\s?(.*?)\s*-->")
    while i < len(lines):
        fence = lines[i].strip()
        if fence.startswith("```"):
            info = fence[3:].split()
            start, i = i + 1, i + 1
            while i < len(lines) and lines[i].strip() != "```":
                i += 1
            body = lines[start:i]
            if info[:2] == ["sh", "workshop"]:
                steps.append(Step(doc, start, commands_of(body)))
            elif info[:2] == ["text", "output"]:
                if not steps:
                    raise SystemExit(f"{doc}:{start}: an output block before any step")
                steps[-1].output += [l.rstrip() for l in body if l.strip() and l.strip() != "..."]
        elif steps:
            for kind, value in comment.findall(lines[i]):
                s = steps[-1]
                if kind == "expect":
                    s.expect.append(value)
                elif kind == "expect-not":
                    s.expect_not.append(value)
                else:
                    s.exit = int(value)
        i += 1
    return steps


def node_prefix(cmd):
    """Splits 'scripts/workshop-node.sh [--shape S] [--numa-balancing B]
    [--thp T] REST' into those options and REST as written."""
    m = re.match(r"\S+((?:\s+--(?:shape|numa-balancing|thp)\s+\S+)*)\s+(.*)$", cmd, re.S)
    opts = {"--shape": "snc2", "--numa-balancing": "0", "--thp": "madvise"}
    words = m.group(1).split()
    opts.update(zip(words[0::2], words[1::2]))
    return opts, m.group(2)


def step_script(step, outdir, name, inside):
    """Bash that runs a step's commands, each one's output and status saved."""
    out = os.path.join(outdir, name)
    text = [f": >{shlex.quote(out + '.out')}; : >{shlex.quote(out + '.rc')}"]
    for cmd in step.commands:
        if inside:
            opts, cmd = node_prefix(cmd)
            text.append(f"echo {opts['--numa-balancing']} >/proc/sys/kernel/numa_balancing")
            text.append(f"echo {opts['--thp']} >/sys/kernel/mm/transparent_hugepage/enabled")
        text.append("{\n" + cmd + f"\n}} >>{shlex.quote(out + '.out')} 2>&1 </dev/null")
        text.append(f"echo $? >>{shlex.quote(out + '.rc')}")
    return "\n".join(text) + "\n"


def check(step, outdir, name):
    """Problems with a step's saved output (empty list: as claimed)."""
    try:
        out = open(os.path.join(outdir, name + ".out"), encoding="utf-8", errors="replace").read()
        rcs = [int(x) for x in open(os.path.join(outdir, name + ".rc")).read().split()]
    except FileNotFoundError:
        return ["did not run"], ""
    bad = []
    if len(rcs) != len(step.commands):
        bad.append(f"{len(rcs)} of {len(step.commands)} commands ran")
    for k, rc in enumerate(rcs):
        want = step.exit if k == len(step.commands) - 1 else 0
        if rc != want:
            bad.append(f"'{step.commands[k]}' exited {rc}, the text says {want}")
    for rx in step.expect:
        if not re.search(rx, out, re.M):
            bad.append(f"no match for <!-- expect: {rx} -->")
    for rx in step.expect_not:
        if re.search(rx, out, re.M):
            bad.append(f"a match for <!-- expect-not: {rx} -->")
    lines, k = [l.rstrip() for l in out.split("\n")], 0
    for want in step.output:
        while k < len(lines) and want.strip() not in lines[k]:
            k += 1
        if k == len(lines):
            bad.append(f"output line not found (in order): '{want}'")
            break
        k += 1
    return bad, out


def node_scripts(course, work, outdir, ws):
    """The node steps as one bash script per shape: {shape: (path, steps)}."""
    shapes = {}
    for ex, steps in course:
        for n, s in enumerate(steps):
            if s.node:
                shape = node_prefix(s.commands[0])[0]["--shape"]
                shapes.setdefault(shape, []).append((ex, n, s))
    out = {}
    for shape, items in shapes.items():
        script = os.path.join(work, f"guest-{shape}.sh")
        with open(script, "w") as f:
            f.write("#!/bin/bash\nroot=$PWD\n")
            for ex, n, s in items:
                f.write(f"echo 'guest: {s.where()}' >&2\n")
                f.write(f"export WS={shlex.quote(os.path.join(ws, ex))}; mkdir -p \"$WS\"; cd \"$root\"\n")
                f.write(step_script(s, outdir, f"{ex}.{n}", inside=True))
        out[shape] = (script, items)
    return out


def run_node_steps(how, scripts, src, env, outdir):
    """Runs the node steps as HOW says; True when they did not run because
    this host lacks what the node needs."""
    if how == "none":
        return True
    for shape, (script, items) in scripts.items():
        if how == "inside":
            if shape != os.environ.get("BINDLAB_NUMA_SHAPE"):
                continue
            print(f"course: {len(items)} node steps of shape {shape}, here", flush=True)
            rc = subprocess.run(["bash", script], cwd=src, env=env).returncode
        elif how == "done" or (os.environ.get("BINDLAB_WORKSHOP_REUSE") == "1" and all(
                os.path.exists(os.path.join(outdir, f"{ex}.{n}.rc")) for ex, n, _ in items)):
            print(f"course: node steps of shape {shape} judged from {outdir}")
            continue
        else:
            print(f"course: {len(items)} node steps in one boot of shape {shape}", flush=True)
            # The whole work folder is shared: the steps' outputs are saved there.
            rc = subprocess.run([os.path.join(src, NODE), "--shape", shape, "--script", script],
                                cwd=src, env=dict(env, WS=os.path.dirname(outdir))).returncode
            if rc == 125:
                print("course: the emulated NUMA node needs what this host lacks (reason above); "
                      "the host steps run all the same")
                return True
        print(f"course: the node's script ended with status {rc}", flush=True)
    return False


def main():
    args, how = sys.argv[1:], "boot"
    if args[:1] == ["--node"]:
        how, args = args[1], args[2:]
        if how not in ("boot", "inside", "done", "none"):
            raise SystemExit(f"course.py: --node takes boot, inside, done or none, not '{how}'")
    docs, work = args[0], os.path.abspath(args[1])
    # The project root: the steps run there (the README's "from the root").
    src = os.environ.get("BINDLAB_SOURCE_DIR") or os.path.dirname(
        os.path.dirname(os.path.abspath(docs.rstrip("/"))))
    files = args[2:] or sorted(
        os.path.join(docs, f) for f in os.listdir(docs) if re.match(r"\d\d-.*\.md$", f))
    files = [os.path.join(docs, "README.md")] + [f for f in files if not f.endswith("README.md")]
    course = [(os.path.basename(f)[:-3], parse(f)) for f in files]
    outdir, ws = os.path.join(work, "out"), os.path.join(work, "ws")
    os.makedirs(outdir, exist_ok=True)
    os.makedirs(ws, exist_ok=True)
    env = dict(os.environ, WS=ws)

    # Node steps: one guest script, one boot (per shape).
    unavailable = run_node_steps(how, node_scripts(course, work, outdir, ws), src, env, outdir)
    if how == "inside":
        return 0

    # Host steps: one bash per exercise, in the text's order.
    for ex, steps in course:
        exws = os.path.join(ws, ex)
        os.makedirs(exws, exist_ok=True)
        body = [f"cd {shlex.quote(src)}", f"export WS={shlex.quote(exws)}"]
        body += [step_script(s, outdir, f"{ex}.{n}", inside=False)
                 for n, s in enumerate(steps) if not s.node]
        subprocess.run(["bash", "-c", "\n".join(body)], env=dict(env, WS=exws))

    failed = 0
    for ex, steps in course:
        for n, s in enumerate(steps):
            where = f"{s.where()} ({'node' if s.node else 'host'}): {s.commands[-1].splitlines()[0][:70]}"
            if s.node and unavailable:
                print(f"not run {where}")
                continue
            bad, out = check(s, outdir, f"{ex}.{n}")
            if bad:
                failed += 1
                print(f"FAIL {where}")
                for b in bad:
                    print(f"     {b}")
                print("     --- commands:\n" + "\n".join("     " + l for c in s.commands for l in c.split("\n")))
                print("     --- output (last 40 lines):\n" + "\n".join("     " + l for l in out.rstrip().split("\n")[-40:]))
            else:
                print(f"ok   {where}")
    total = sum(len(s) for _, s in course)
    skipped = sum(s.node for _, steps in course for s in steps) if unavailable else 0
    print(f"course: {total - failed - skipped} of {total} steps as the text says"
          + (f", {skipped} node steps not run (the node needs what this host lacks)" if skipped else ""))
    return 1 if failed else 77 if skipped else 0


if __name__ == "__main__":
    sys.exit(main())
