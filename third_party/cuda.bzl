"""cuda_library: compiles .cu files with the toolkit's nvcc and wraps the objects in a cc_library."""

NVCC = "/usr/local/cuda/bin/nvcc"

# sm_80 (A100) and sm_90 (H100/H200); -fPIC so the objects link into shared test binaries.
NVCC_FLAGS = " ".join([
    "-c",
    "-O3",
    "-std=c++17",
    "-Xcompiler -fPIC",
    "-gencode arch=compute_80,code=sm_80",
    "-gencode arch=compute_90,code=sm_90",
    "-I.",
])

def cuda_library(name, srcs, hdrs = [], deps = [], **kwargs):
    """A cc_library over nvcc-compiled `srcs` (.cu); `hdrs` may be included by the .cu files."""
    objects = []
    for src in srcs:
        obj = "_%s_%s.o" % (name, src.replace("/", "_")[:-len(".cu")])
        native.genrule(
            name = obj[:-len(".o")] + "_nvcc",
            srcs = [src] + hdrs,
            outs = [obj],
            cmd = "%s %s -o $@ $(location %s)" % (NVCC, NVCC_FLAGS, src),
            message = "nvcc " + src,
            tags = ["manual"],  # built only when something under --config=cuda needs it
        )
        objects.append(obj)
    native.cc_library(
        name = name,
        srcs = objects,
        hdrs = hdrs,
        deps = deps + ["//third_party:cuda"],
        **kwargs
    )
