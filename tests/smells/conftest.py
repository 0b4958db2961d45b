"""The corpus holds analyzer input, not tests of this suite."""

collect_ignore_glob = ["corpus/*"]
