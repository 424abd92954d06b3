"""The build of the native path falls back to the pure-Python package where it cannot build.

setup.py's ``build_ext`` catches what a compiler (or the lack of one) raises,
says so in one line and leaves nothing of the extension to be copied or linked
into place, so that ``pip install`` (editable too) finishes with the pure
package.  Here it is run with ``CC=false``, a compiler that always fails.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from setuptools import Distribution

ROOT = Path(__file__).parent.parent.parent


def load_setup() -> ModuleType:
    spec = importlib.util.spec_from_file_location("streamcalls_setup", ROOT / "setup.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_without_a_compiler_the_build_says_so_and_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    setup = load_setup()
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CC", "false")
    monkeypatch.delenv("STREAMCALLS_PURE_PYTHON_BUILD", raising=False)
    extensions = setup.extensions()
    assert [ext.name for ext in extensions] == ["streamcalls._native._speedups"]
    dist = Distribution({"name": "streamcalls", "ext_modules": extensions})
    dist.cmdclass["build_ext"] = setup.OptionalBuildExt
    command = dist.get_command_obj("build_ext")
    command.build_lib = str(tmp_path / "lib")
    command.build_temp = str(tmp_path / "temp")
    command.ensure_finalized()
    command.run()  # no exception
    said = [line for line in capsys.readouterr().err.splitlines() if line.startswith("streamcalls:")]
    assert len(said) == 1
    assert "the native fast path was not built" in said[0]
    assert "the pure-Python path is used" in said[0]
    assert command.extensions == []
    assert command.get_outputs() == []  # nothing for an install to copy
    assert not list(tmp_path.rglob("*.so"))


def test_the_pure_wheel_has_no_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STREAMCALLS_PURE_PYTHON_BUILD", "1")
    assert load_setup().extensions() == []


def test_the_platform_wheels_refuse_to_fall_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """STREAMCALLS_REQUIRE_NATIVE=1 (cibuildwheel's environment): a wheel without the native path
    would be a pure wheel with a platform's name."""
    setup = load_setup()
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("CC", "false")
    monkeypatch.setenv("STREAMCALLS_REQUIRE_NATIVE", "1")
    dist = Distribution({"name": "streamcalls", "ext_modules": setup.extensions()})
    dist.cmdclass["build_ext"] = setup.OptionalBuildExt
    command = dist.get_command_obj("build_ext")
    command.build_lib = str(tmp_path / "lib")
    command.build_temp = str(tmp_path / "temp")
    command.ensure_finalized()
    with pytest.raises(Exception, match="false"):
        command.run()
