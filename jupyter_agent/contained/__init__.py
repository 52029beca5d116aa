"""The contained kernel: ipykernel inside the same sandbox as a ``bash`` command.

``jupyter-agent kernel install --contained`` writes its kernelspec (``kernelspec.py``);
the kernelspec starts ``python -m jupyter_agent.contained`` (``launch.py``), which plans the
layout, starts the kernel in bubblewrap and stays beside it. Inside, the agent knows it is
contained from ``tools/kernel_kind.py``.
"""
