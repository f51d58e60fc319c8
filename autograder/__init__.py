"""The kit's grader: loads a submission, runs it in a sandboxed child process, and grades it per component.

Importing this package must stay cheap and must never import the reference solutions: the sandbox's
zygote imports it before forking the processes that run student code.
"""
