"""The public checks' stand-in for a component's child: the suites' requests (new, load, call, train), answered
by the child's own code (child/server.py: the tripwire, the dropout stand-in, results read by exact type) on the
student's objects, in the student's own process, with the replies the judge reads from a child."""

from autograder.engine.child.server import Server
from autograder.engine.child.tripwire import Forbidden, Unwatched
from autograder.engine.contract import spec
from autograder.engine.contract.errors import Fatal, StudentError
from autograder.engine.contract.messages import Requests


class LocalStudent(Requests):
    def __init__(self, component_id, names):
        component = spec.BY_ID[component_id]
        self.component_id = component_id
        self.server = Server(
            None,
            {
                "device": "cpu",
                "forbidden": list(component.forbidden),
                "reason": component.forbidden_reason,
                "memory_limit": None,
            },
        )
        self.server.names = dict(names)
        self.built = {}  # as a child's: the suites' modules, by case and dtype
        self.observations = []  # as a child's: what the value checks returned (diagnosis.Observation)
        self.fatal = None
        self.not_started = None  # the NotImplementedError a stub raised, if one did
        self.errors = {}  # {the message the suites read: the error itself}: what failed_check reads of a crash

    def request(self, message):
        if self.fatal:
            raise Fatal(self.fatal)
        try:
            return getattr(self.server, "do_" + message["op"])(message)
        except (Forbidden, Unwatched) as error:
            self.fatal = str(error)  # Forbidden's and Unwatched's message is the reason
            raise Fatal(self.fatal) from None
        except Exception as error:  # noqa: BLE001 - whatever the student's code raises is feedback
            if isinstance(error, NotImplementedError) and self.not_started is None:
                self.not_started = error
            message = self.server._explain(error)
            self.errors.setdefault(message, error)
            raise StudentError(message) from None


class LocalGrading:
    """What the suites' conftest asks of a grading, for one run of the public checks on the student's objects."""

    def __init__(self, names):
        self.names = names
        self.children = {}

    def child(self, component_id):
        self.children[component_id] = LocalStudent(component_id, self.names)
        return self.children[component_id]

    def release(self, component_id):
        pass
