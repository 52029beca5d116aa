"""``python -m jupyter_agent.contained -f CONNECTION_FILE``: what the contained kernelspec runs."""

import sys

from jupyter_agent.contained.launch import main

if __name__ == "__main__":
    sys.exit(main())
