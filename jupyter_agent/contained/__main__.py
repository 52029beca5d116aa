"""``python -m jupyter_agent.contained -f CONNECTION_FILE``: what the contained kernelspec runs."""

import sys

from jupyter_agent.contained.launch import main

sys.exit(main())
