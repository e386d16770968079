"""Stand-ins for SLURM's command-line tools, so the real Snakemake SLURM executor plugin runs here.

`install(bindir, state)` writes one Python program and links it as sbatch, squeue, sacct,
scancel, sinfo, scontrol, sacctmgr, sshare and srun. Every call appends its argv to
state/calls.jsonl. `sbatch` answers like SLURM (`--parsable`: the job id) and runs the
`--wrap` command in the background (or, with sync, before it answers), in the requested directory, with SLURM's job
environment variables and the `--output` log; `sacct`/`squeue` report PENDING/RUNNING
until the script has finished, then COMPLETED or FAILED by its exit status. `srun` (the
plugin's jobstep runs the rule inside `srun -n1 ...`) logs its options and runs the command.
This is a model of the interface the plugin uses (snakemake-executor-plugin-slurm 2.8),
not a scheduler: jobs start at once, resources are recorded, not enforced.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

TOOLS = ["sbatch", "squeue", "sacct", "scancel", "sinfo", "scontrol", "sacctmgr", "sshare", "srun"]

PROGRAM = r'''#!{python}
import fcntl, json, os, re, signal, subprocess, sys, time
from pathlib import Path

STATE = Path({state!r})
TOOL = Path(sys.argv[0]).name
ARGS = sys.argv[1:]
with open(STATE / "calls.jsonl", "a") as f:
    fcntl.flock(f, fcntl.LOCK_EX)
    f.write(json.dumps({{"tool": TOOL, "argv": ARGS, "cwd": os.getcwd(), "t": time.time()}}) + "\n")


def opt(name, default=None):
    """Value of --name=v, --name v or -n v in ARGS."""
    for i, a in enumerate(ARGS):
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
        if a == name and i + 1 < len(ARGS):
            return ARGS[i + 1]
    return default


def jobs():
    out = []
    for p in sorted((STATE / "jobs").glob("*.json")):
        try:
            out.append(json.loads(p.read_text()))
        except json.JSONDecodeError:  # being written
            pass
    return out


def next_id():
    with open(STATE / "counter", "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.seek(0)
        n = int(f.read().strip() or 1000) + 1
        f.seek(0); f.truncate(); f.write(str(n))
    return n


def write_job(job):
    tmp = STATE / "jobs" / f".{{job['id']}}.tmp"
    tmp.write_text(json.dumps(job))
    os.replace(tmp, STATE / "jobs" / f"{{job['id']}}.json")


if TOOL == "sbatch":
    wrap = opt("--wrap")
    if wrap is None:
        sys.exit("sbatch (stand-in): only --wrap submissions are modelled")
    (STATE / "jobs").mkdir(exist_ok=True)
    jid = next_id()
    log = Path(opt("--output", f"slurm-{{jid}}.out").replace("%j", str(jid)))
    workdir = opt("-D", os.getcwd())
    env = dict(os.environ, SLURM_JOB_ID=str(jid), SLURM_JOBID=str(jid),
               SLURM_JOB_NAME=opt("--job-name", ""), SLURM_NNODES=opt("--nodes", "1"),
               SLURM_JOB_PARTITION=opt("-p", ""), SLURM_CPUS_PER_TASK=opt("--cpus-per-task", "1"),
               SLURM_SUBMIT_DIR=os.getcwd())
    if opt("--gpus"):
        env["SLURM_GPUS"] = opt("--gpus")
    job = {{"id": jid, "name": opt("--job-name", ""), "state": "PENDING", "argv": ARGS}}
    write_job(job)
    runner = (
        "import json, os, subprocess, sys\n"
        "job = json.loads(sys.argv[1]); state = sys.argv[2]\n"
        "def save(j):\n"
        "    tmp = os.path.join(state, 'jobs', '.%s.tmp' % j['id'])\n"
        "    open(tmp, 'w').write(json.dumps(j)); os.replace(tmp, os.path.join(state, 'jobs', '%s.json' % j['id']))\n"
        "job['state'] = 'RUNNING'; job['pid'] = os.getpid(); save(job)\n"
        "log = open(sys.argv[4], 'w')\n"
        "rc = subprocess.call(['/bin/sh', '-c', sys.argv[3]], stdout=log, stderr=subprocess.STDOUT)\n"
        "job['state'] = 'COMPLETED' if rc == 0 else 'FAILED'; job['exit_code'] = rc; save(job)\n"
    )
    log.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([sys.executable, "-c", runner, json.dumps(job), str(STATE), wrap, str(log)],
                            cwd=workdir, env=env, start_new_session=True,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if {sync!r}:
        proc.wait()  # the job has run before sbatch answers: the plugin's first status check finds it done
    print(jid if "--parsable" in ARGS else f"Submitted batch job {{jid}}")

elif TOOL in ("sacct", "squeue"):
    if "-j" in ARGS:  # failure reasons per job step: sacct -j <id>.<step> --format=Reason
        print("NonZeroExitCode" if ARGS[ARGS.index("-j") + 1].endswith(".0") else "")
    elif "-nu" in ARGS:  # the plugin's account guess: sacct -nu <user> -o Account%256
        print("guessacct")
    else:
        name = opt("--name")
        for j in jobs():
            if name is None or j["name"] == name:
                print(f"{{j['id']}}|{{j['state']}}")

elif TOOL == "scancel":
    for a in ARGS:
        if a.isdigit():
            p = STATE / "jobs" / f"{{a}}.json"
            if p.exists():
                j = json.loads(p.read_text())
                if j.get("pid") and j["state"] == "RUNNING":
                    try:
                        os.killpg(j["pid"], signal.SIGTERM)
                    except ProcessLookupError:
                        pass
                j["state"] = "CANCELLED"
                write_job(j)

elif TOOL == "sinfo":
    print("PARTITION\ndefaultpart*\ngpupart")

elif TOOL == "scontrol":
    if ARGS[:2] == ["show", "hostnames"]:  # node[1-2] -> node1, node2 (the simple range form only)
        m = re.fullmatch(r"(\w+)\[(\d+)-(\d+)\]", ARGS[2])
        names = [f"{{m.group(1)}}{{i}}" for i in range(int(m.group(2)), int(m.group(3)) + 1)] if m else ARGS[2].split(",")
        print("\n".join(names))
    else:
        print("MinJobAge               = 300 sec\nMaxArraySize            = 1001")

elif TOOL in ("sacctmgr", "sshare"):
    print("testacct\nguessacct")

elif TOOL == "srun":
    # srun [options] command...: the options all come as one token (-n1, --gpus=1, --ntasks=2, ...).
    # Each task runs the command in turn, with its SLURM_PROCID / SLURM_NODEID (one task per node).
    i = 0
    while i < len(ARGS) and ARGS[i].startswith("-"):
        i += 1
    ntasks = int(opt("--ntasks", "1")) if "-n1" not in ARGS else 1
    rcs = [subprocess.call(ARGS[i:], env=dict(os.environ, SLURM_PROCID=str(t), SLURM_NODEID=str(t)))
           for t in range(ntasks)]
    sys.exit(max(rcs))
'''


def install(bindir: Path, state: Path, sync: bool = False) -> None:
    """Write the stand-ins to `bindir`, their records to `state`. sync: sbatch returns only after the
    job has run (saves the plugin's growing poll interval, 1 s then +10 s per check, on slow machines)."""
    bindir.mkdir(parents=True, exist_ok=True)
    state.mkdir(parents=True, exist_ok=True)
    (state / "calls.jsonl").touch()
    prog = bindir / "fake_slurm_tool"
    prog.write_text(PROGRAM.format(python=sys.executable, state=str(state), sync=sync))
    prog.chmod(prog.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    for tool in TOOLS:
        link = bindir / tool
        if link.exists() or link.is_symlink():
            link.unlink()
        os.symlink(prog, link)


def calls(state: Path, tool: str | None = None) -> list[list[str]]:
    """argv of every recorded call (of one tool)."""
    rows = [json.loads(line) for line in (state / "calls.jsonl").read_text().splitlines() if line]
    return [r["argv"] for r in rows if tool is None or r["tool"] == tool]
