"""The README's Python example runs as written, from the repository's root."""

import os
import re

from conftest import ROOT


def test_the_readme_example_runs(monkeypatch):
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("## Python"):]
    example = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert "import irlite" in example and "assert_allclose" in example
    assert len(example.strip().splitlines()) <= 12
    monkeypatch.chdir(ROOT)
    namespace = {}
    exec(compile(example, "README.md", "exec"), namespace)
    assert "outputs" in namespace
