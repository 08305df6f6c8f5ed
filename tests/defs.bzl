"""One cc_test per tests/<folder>/*_test.cc file."""

def duet_tests(folder, deps, data = []):
    for src in native.glob([folder + "/*_test.cc"]):
        native.cc_test(
            name = src[:-len(".cc")],
            srcs = [src],
            size = "small",
            data = data + native.glob([folder + "/testdata/**"]),
            deps = deps + [":test_main", ":test_util", "//third_party:catch2", "//third_party:absl"],
        )
