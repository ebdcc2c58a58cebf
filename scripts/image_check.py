#!/usr/bin/env python3
"""Checks the runtime stage of docker/Dockerfile without a Docker engine.

Usage (as root, on Debian or Ubuntu, from the repository root):

    scripts/image_check.py [--root DIR] [--port PORT]

Builds the release binary, makes a Debian bookworm root file system with debootstrap's
minbase variant (what the debian:bookworm-slim image is built from) unless DIR holds one
already, then carries out the runtime stage of the Dockerfile in it, instruction by
instruction: RUN in a chroot, COPY (the binary from the build stage, files from the
repository), WORKDIR, USER, ENV, and finally CMD, started as the stage's user in a PID
namespace of its own (so the server is PID 1, as in a container), with the environment of
the ENV lines and one override, STARGAMMON_SERVER__LISTEN, as `docker run -e` would pass it.
It then talks to the server on loopback (version, a checker play, an evaluation, a bad
line), sends SIGTERM and checks that the server stops cleanly. Prints one line per check
and exits 1 on the first failure.

What it does not check: the build stage itself (the binary comes from this machine's
toolchain, which links against the same glibc as bookworm's), and layer caching.
"""
import argparse
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCKERFILE = os.path.join(REPO, "docker", "Dockerfile")
BOARD = ("board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:"
         "2:0:1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0")


def fail(msg):
    print(f"FAIL {msg}")
    sys.exit(1)


def ok(msg):
    print(f"ok   {msg}")


def instructions(path):
    """The Dockerfile's instructions (continuations joined, comments dropped)."""
    lines, cur = [], ""
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not cur and (not line.strip() or line.lstrip().startswith("#")):
                continue
            if line.endswith("\\"):
                cur += line[:-1] + " "
                continue
            cur += line
            word, _, rest = cur.strip().partition(" ")
            lines.append((word.upper(), rest.strip()))
            cur = ""
    return lines


def runtime_stage(instrs):
    """The instructions after the last FROM."""
    last = max(i for i, (w, _) in enumerate(instrs) if w == "FROM")
    return instrs[last + 1:]


def env_pairs(text):
    """KEY=VALUE pairs of an ENV instruction."""
    pairs = {}
    for tok in shlex.split(text):
        key, sep, value = tok.partition("=")
        if not sep:
            fail(f"ENV form not understood: {text}")
        pairs[key] = value
    return pairs


def request(port, line, lines=1, timeout=30.0):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(line.encode() + b"\n")
        data = b""
        while data.count(b"\n") < lines:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    return data.decode("utf-8", "replace").splitlines()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(REPO, "runs", "image-root"))
    ap.add_argument("--port", type=int, default=4391)
    args = ap.parse_args()
    if os.geteuid() != 0:
        fail("run as root (chroot, debootstrap)")

    subprocess.run(["cargo", "build", "--release", "--locked", "--bin", "stargammon"],
                   cwd=REPO, check=True)
    binary = os.path.join(REPO, "runs", "stargammon-stripped")
    os.makedirs(os.path.dirname(binary), exist_ok=True)
    shutil.copy2(os.path.join(REPO, "target", "release", "stargammon"), binary)
    subprocess.run(["strip", binary], check=True)

    root = args.root
    if not os.path.exists(os.path.join(root, "etc", "debian_version")):
        subprocess.run(["debootstrap", "--variant=minbase", "bookworm", root,
                        "http://deb.debian.org/debian"], check=True)
    base_bytes = int(subprocess.run(["du", "-sb", root], capture_output=True, text=True,
                                    check=True).stdout.split()[0])

    workdir, user, env, cmd = "/", "root", {}, None
    added = 0
    for word, rest in runtime_stage(instructions(DOCKERFILE)):
        if word == "RUN":
            # Run once: a second check on the same root must not fail on useradd.
            marker = os.path.join(root, "var", "lib", "image-check-ran")
            done = open(marker).read().splitlines() if os.path.exists(marker) else []
            if rest not in done:
                subprocess.run(["chroot", root, "sh", "-c", rest], check=True)
                with open(marker, "a", encoding="utf-8") as f:
                    f.write(rest + "\n")
            ok(f"RUN {rest}")
        elif word == "WORKDIR":
            workdir = rest
            os.makedirs(root + workdir, exist_ok=True)
        elif word == "COPY":
            parts = rest.split()
            if parts[0].startswith("--from="):
                src, dst = binary, parts[2]
            else:
                src, dst = os.path.join(REPO, parts[0]), parts[1]
            target = dst if dst.startswith("/") else os.path.join(workdir, dst)
            target = root + target
            if os.path.isdir(src):
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(src, target)
                added += sum(os.path.getsize(os.path.join(d, f))
                             for d, _, fs in os.walk(target) for f in fs)
            else:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copy2(src, target)
                added += os.path.getsize(target)
            ok(f"COPY {rest}")
        elif word == "USER":
            user = rest
        elif word == "ENV":
            env.update(env_pairs(rest))
        elif word == "CMD":
            cmd = json.loads(rest)
        elif word in ("EXPOSE", "LABEL"):
            pass
        else:
            fail(f"instruction {word} not handled by this check")
    if cmd is None:
        fail("no CMD in exec form")
    ok(f"image: base {base_bytes / 1e6:.0f} MB + {added / 1e6:.1f} MB added "
       f"(binary, config, weights)")

    uid = subprocess.run(["chroot", root, "id", "-u", user], capture_output=True, text=True,
                         check=True).stdout.strip()
    gid = subprocess.run(["chroot", root, "id", "-g", user], capture_output=True, text=True,
                         check=True).stdout.strip()
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", **env,
           "STARGAMMON_SERVER__LISTEN": f"127.0.0.1:{args.port}"}
    inner = "cd " + shlex.quote(workdir) + " && exec " + " ".join(shlex.quote(c) for c in cmd)
    proc = subprocess.Popen(
        ["unshare", "--pid", "--fork", "--kill-child", "chroot", f"--userspec={uid}:{gid}", root,
         "sh", "-c", inner],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        start_new_session=True)
    try:
        deadline = time.time() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", args.port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    fail("the server did not start: " + (proc.stdout.read() or ""))
                time.sleep(0.2)
        ok(f"CMD {' '.join(cmd)} as {user} ({uid}), listening on 127.0.0.1:{args.port} "
           "from the environment")
        v = request(args.port, "version", lines=4)
        if len(v) < 4 or not v[0].startswith("Interface:"):
            fail(f"version: {v}")
        ok(f"version: {' / '.join(v[:4])}")
        m = request(args.port, BOARD)
        if not m or "/" not in m[0]:
            fail(f"board: {m}")
        ok(f"board: request answered with the play {m[0].strip()}")
        e = request(args.port, "evaluation fibsboard " + BOARD + " plies 0 cubeless")
        if not e or len(e[0].split()) != 6:
            fail(f"evaluation: {e}")
        ok(f"evaluation: {e[0].strip()}")
        bad = request(args.port, "board:nonsense")
        if not bad or not bad[0].startswith("Error"):
            fail(f"bad line: {bad}")
        ok(f"bad line answered: {bad[0].strip()}")
        # SIGTERM to the server itself (PID 1 of its namespace: the child of unshare).
        child = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True,
                               text=True).stdout.split()
        if not child:
            fail("no server process under unshare")
        t0 = time.time()
        os.kill(int(child[0]), signal.SIGTERM)
        try:
            rc = proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            fail("the server did not stop within 10 s of SIGTERM")
        out = proc.stdout.read()
        if rc != 0:
            fail(f"exit status {rc}: {out[-2000:]}")
        ok(f"SIGTERM: stopped cleanly in {time.time() - t0:.2f} s, exit status 0")
        last = [line for line in out.splitlines() if line.strip()][-1:]
        if last:
            ok(f"last log line: {last[0][:160]}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
