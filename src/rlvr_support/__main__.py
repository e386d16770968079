import sys

from rlvr_support.config.numerics import apply as pin_numerics
from rlvr_support.cli.warm_server import run_warm
from rlvr_support.idle_threads import short_spin

# First of all, before anything loads torch, numpy or a BLAS: those read their kernel choices from
# the environment once, when they load (config/numerics.py).
short_spin()
try:
    pin_numerics(sys.argv[1:])
except ValueError as e:
    print(f"error: {e}", file=sys.stderr)
    sys.exit(1)

if __name__ == "__main__" and (rc := run_warm(sys.argv[1:])) is not None:  # a warm child ran it (cli/warm_server.py)
    sys.exit(rc)

from rlvr_support.cli.main import main  # noqa: E402  (after the pins, on purpose)

if __name__ == "__main__":
    sys.exit(main())
