"""duet.compat: TensorFlow's compatibility namespaces. `import duet.compat.v1 as tf` runs
TensorFlow 1.x programs (docs/python.md, "TensorFlow 1.x programs")."""
