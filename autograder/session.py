"""One grading run: the submission, the sandbox, and what happened to each component's child."""
from autograder import loader, sandbox


class Grading:
    """What one pytest run grades, and what happened to each component's child."""

    def __init__(self, path, device, limits):
        self.device = device
        self.limits = limits
        self.error = None
        try:
            self.submission = loader.load(path)
        except (loader.SubmissionError, OSError) as error:
            self.submission = None
            self.error = str(error)
        self.sandbox = sandbox.Sandbox(device, limits) if self.submission else None
        self.children = {}

    def child(self, component_id):
        if self.error:
            raise sandbox.Fatal(f"the submission could not be read: {self.error}")
        if component_id not in self.children:
            self.children[component_id] = self.sandbox.start(component_id, self.submission)
        return self.children[component_id]

    def close(self):
        for child in self.children.values():
            child.close()
        if self.sandbox:
            self.sandbox.close()
