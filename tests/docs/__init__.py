"""The documentation stays true: the README's examples and the tutorial's commands are run as written."""
