"""One grading run: the submission, the sandbox, and what happened to each component's child."""
from autograder import loader
from autograder.sandbox import Fatal, Sandbox


class Grading:
    """What one pytest run grades, and what happened to each component's child."""

    def __init__(self, path, device, limits, sandbox=None):
        self.error = None
        self.owns_sandbox = sandbox is None
        try:
            self.submission = loader.load(path)
        except (loader.SubmissionError, OSError) as error:
            self.submission = None
            self.error = str(error)
        if self.owns_sandbox and self.submission:
            sandbox = Sandbox(device, limits)
        self.sandbox = sandbox
        self.children = {}

    def child(self, component_id):
        if self.error:
            raise Fatal(f"the submission could not be read: {self.error}")
        if component_id not in self.children:
            self.children[component_id] = self.sandbox.start(component_id, self.submission)
        return self.children[component_id]

    def close(self):
        for child in self.children.values():
            child.close()
        if self.sandbox and self.owns_sandbox:
            self.sandbox.close()
