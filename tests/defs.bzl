"""One cc_test per tests/<folder>/*_test.cc file."""

# Every test runs with the virtual device cpu:1 (Note [Virtual devices] in core/device.cc), so that
# multi-device code is tested on machines without a GPU.
TEST_ENV = {"DUET_VIRTUAL_DEVICES": "2"}

def duet_tests(folder, deps, data = []):
    for src in native.glob([folder + "/*_test.cc"]):
        native.cc_test(
            name = src[:-len(".cc")],
            srcs = [src],
            size = "small",
            env = TEST_ENV,
            data = data + native.glob([folder + "/testdata/**"]),
            deps = deps + [":test_main", ":test_util", "//third_party:catch2", "//third_party:absl"],
        )
