"""python_configure: the Python headers and nanobind of one interpreter, as local repositories.

The interpreter is $DUET_PYTHON (the pip build backend sets it to the interpreter pip runs), else
the venv tools/dev.sh makes ($HOME/.venvs/duet), else `python3` on PATH. The rule asks that interpreter where its headers
and its nanobind (PyPI) live, so the build stays offline: nothing is downloaded here.

  @duet_python//:headers    Python.h and friends (no library: an extension resolves the
                            interpreter's symbols when it is loaded)
  @duet_python//:nanobind   nanobind's sources, compiled once into the extension
"""

_BUILD = """\
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "headers",
    hdrs = glob(["include/**/*.h"]),
    includes = ["include"],
)

# nb_combined.cpp includes every other source of nanobind; robin_map is its hash table.
cc_library(
    name = "nanobind",
    srcs = ["nanobind/src/nb_combined.cpp"],
    hdrs = glob([
        "nanobind/include/**/*.h",
        "nanobind/src/*.h",
        "nanobind/ext/robin_map/include/**/*.h",
    ]),
    textual_hdrs = glob(
        ["nanobind/src/*.cpp"],
        exclude = ["nanobind/src/nb_combined.cpp"],
    ),
    copts = ["-fvisibility=hidden", "-Wno-unused-function", "-Wno-missing-field-initializers"],
    defines = ["NB_COMPACT_ASSERTIONS"],
    includes = ["nanobind/include", "nanobind/ext/robin_map/include"],
    deps = [":headers"],
)

# The path of the interpreter the extension was built for, for the tests that run it (a venv's
# interpreter must be started by that path: it finds its venv beside it).
exports_files(["python_path"])
"""

_PROBE = """\
import os, sys, sysconfig
import nanobind
print(sysconfig.get_paths()["include"])
print(os.path.dirname(nanobind.include_dir()))
print(sys.executable)
"""

def _python_configure_impl(ctx):
    default = ctx.os.environ.get("HOME", "/") + "/.venvs/duet/bin/python3"
    python = ctx.os.environ.get("DUET_PYTHON", "")
    if not python:
        python = default if ctx.path(default).exists else "python3"
    if "/" not in python:
        found = ctx.which(python)
        if not found:
            fail("duet's Python bindings: no `%s` on PATH (set DUET_PYTHON)" % python)
        python = str(found)
    result = ctx.execute([python, "-c", _PROBE])
    if result.return_code != 0:
        fail(("duet's Python bindings: %s cannot tell its headers and nanobind (tools/dev.sh " +
              "deps installs nanobind; or set DUET_PYTHON to an interpreter that has it):\n%s") %
             (python, result.stderr))
    include_dir, nanobind_dir, executable = result.stdout.strip().split("\n")
    ctx.symlink(include_dir, "include")
    # A copy, not a link: pip's isolated build environment, where nanobind may live, is deleted
    # after the build, and the repository outlives it.
    copied = ctx.execute(["cp", "-r", nanobind_dir, "nanobind"])
    if copied.return_code != 0:
        fail("duet's Python bindings: cannot copy %s: %s" % (nanobind_dir, copied.stderr))
    ctx.file("python_path", executable + "\n")
    ctx.file("BUILD.bazel", _BUILD)

python_configure = repository_rule(
    implementation = _python_configure_impl,
    environ = ["DUET_PYTHON", "HOME", "PATH"],
    local = True,
)
