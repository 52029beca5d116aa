.PHONY: install start test lint bench
install:
	./scripts/install.sh
start:
	./scripts/start.sh
test:
	./scripts/test.sh
lint:
	.venv/bin/ruff check jupyter_agent tests benchmarks
	.venv/bin/ruff format --check jupyter_agent tests benchmarks
	.venv/bin/mypy jupyter_agent
	.venv/bin/lint-imports
bench:
	.venv/bin/python -m benchmarks
