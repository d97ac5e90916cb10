"""Logging and running commands, the same way in every build step."""

import subprocess


def log(message: str) -> None:
    print(f"[build] {message}", flush=True)


def run(*command, **options) -> None:
    log(" ".join(str(part) for part in command))
    subprocess.run([str(part) for part in command], check=True, **options)
