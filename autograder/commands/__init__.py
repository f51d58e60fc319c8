"""The command line's commands, a module per group, as otter-grader keeps a folder per command: the student's
(student), grading submissions and a class (grading), building and checking the course (building), and the
options several share (options). Each module adds its commands' parsers, each parser naming the function that
runs it; autograder/__main__.py puts them together.

On top of the three layers, with the package's own modules: may import any of them.
"""
