import sys

from rlvr_support.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
