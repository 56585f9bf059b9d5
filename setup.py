"""Builds the Python module irlite for `pip install .`: CMake configures the project with
IRLITE_PYTHON=ON for the interpreter running pip, builds the module target alone, and the module
and its type stubs go into the wheel."""

import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(self.build_temp).resolve() / "cmake"
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
            "-DIRLITE_PYTHON=ON", "-DIRLITE_BUILD_TOOLS=OFF", "-DIRLITE_BUILD_TESTS=OFF",
            f"-DPython_EXECUTABLE={sys.executable}",
        ]
        try:  # pybind11's CMake package: Debian's is found anyway, a pip-installed one here
            import pybind11

            configure.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", str(build), "--target", "irlite_python", "-j", jobs],
                       check=True)
        built = build / "python"
        module = next(built.glob("irlite*.so"))
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(module, target)
        shutil.copyfile(ROOT / "src" / "python" / "irlite.pyi", target.with_name("irlite.pyi"))


setup(ext_modules=[Extension("irlite", sources=[])], cmdclass={"build_ext": CMakeBuild})
