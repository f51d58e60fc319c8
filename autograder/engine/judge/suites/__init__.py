"""The hidden suites, one per component: test_<component id>.py, plus the unscored integration check."""
