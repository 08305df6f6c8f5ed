"""Generates C++ from .proto files with the system protoc and wraps it in a cc_library."""

def duet_cc_proto(name, srcs, deps = []):
    """One cc_library `name` over the generated .pb.cc/.pb.h of `srcs` (paths relative to the workspace)."""
    pkg = native.package_name()
    outs_cc = [s.replace(".proto", ".pb.cc") for s in srcs]
    outs_h = [s.replace(".proto", ".pb.h") for s in srcs]
    native.genrule(
        name = name + "_gen",
        srcs = srcs,
        outs = outs_cc + outs_h,
        cmd = "protoc --proto_path=. --cpp_out=$(GENDIR) " + " ".join(["%s/%s" % (pkg, s) for s in srcs]),
    )
    native.cc_library(
        name = name,
        srcs = outs_cc,
        hdrs = outs_h,
        deps = deps + ["//third_party:protobuf"],
    )
