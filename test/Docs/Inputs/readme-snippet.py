"""Runs the README's Python snippet (the sh block that starts with
PYTHONPATH=python) from the source root and compares its output with the
text block that follows it. argv: README path, source root."""
import re
import subprocess
import sys

readme, root = sys.argv[1], sys.argv[2]
text = open(readme).read()
match = re.search(r"```sh\n(PYTHONPATH=python .*?)```\n.*?```text\n(.*?)```",
                  text, re.S)
if not match:
    sys.exit("readme-snippet: error: no Python snippet with its output")
command, expected = match.group(1), match.group(2)
run = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True,
                     text=True)
if run.returncode != 0:
    sys.exit(f"readme-snippet: error: the snippet failed:\n{run.stderr}")
if run.stdout != expected:
    sys.exit(f"readme-snippet: error: the output differs\n--- README\n"
             f"{expected}--- actual\n{run.stdout}")
print(f"readme-snippet: {len(expected.splitlines())} lines as in the README")
