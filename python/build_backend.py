"""A PEP 517 build backend for `pip install .`: builds //python:package with Bazel for the
interpreter pip runs (DUET_PYTHON) and wraps it in a wheel. No sdist: duet builds from a clone."""

import base64
import hashlib
import io
import os
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

NAME, VERSION = "duet", "0.1.0"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _tag():
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{python}-{python}-{platform}"


def _bazel_package():
    cache = os.path.join(os.path.expanduser("~"), ".cache", "duet-bazel-disk")
    # Bazel hands PATH to every action, so the directories pip's isolated build environment adds
    # to it would change every action's key and rebuild all of duet: leave them out.
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if "pip-build-env" not in p)
    subprocess.run(["bazel", "build", f"--disk_cache={cache}",
                    f"--repo_env=DUET_PYTHON={sys.executable}", "//python:package"],
                   cwd=ROOT, env=env, check=True, stdout=sys.stderr)
    return os.path.join(ROOT, "bazel-bin", "python", "package.tar")


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
            "Summary: Eager and traced machine learning with TensorFlow's graphs and formats\n"
            "Requires-Python: >=3.9\nRequires-Dist: numpy\n")


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files = {}
    with tarfile.open(_bazel_package()) as tar:
        for member in tar.getmembers():
            if member.isfile():
                files[member.name] = tar.extractfile(member).read()
    info = f"{NAME}-{VERSION}.dist-info"
    files[f"{info}/METADATA"] = _metadata().encode()
    files[f"{info}/WHEEL"] = (f"Wheel-Version: 1.0\nGenerator: duet build_backend\n"
                              f"Root-Is-Purelib: false\nTag: {_tag()}\n").encode()
    record = io.StringIO()
    for path, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.write(f"{path},sha256={digest},{len(data)}\n")
    record.write(f"{info}/RECORD,,\n")
    files[f"{info}/RECORD"] = record.getvalue().encode()
    wheel = f"{NAME}-{VERSION}-{_tag()}.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files.items():
            info_ = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info_.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            z.writestr(info_, data, zipfile.ZIP_DEFLATED)
    return wheel
