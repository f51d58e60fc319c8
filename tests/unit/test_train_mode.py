"""Dropout's deterministic stand-in and the train-mode run (autograder/engine/child/train_mode.py): every correct way of
writing dropout computes the same stand-in, p = 0 and eval mode are the identity, and the result depends on
each element alone, so that how a tensor is laid out or split never changes it."""

import pytest
import torch
from torch import nn
from torch.nn import functional as F

from autograder.engine.child import train_mode
from autograder.engine.contract.messages import FROZEN

P = 0.3


@pytest.fixture
def x():
    return torch.randn(2, 3, 4, 5, generator=torch.Generator().manual_seed(0), dtype=torch.float64)


DROPOUTS = {
    "nn.Dropout": lambda x: nn.Dropout(P)(x),
    "nn.Dropout(inplace=True)": lambda x: nn.Dropout(P, inplace=True)(x.clone()),
    "F.dropout": lambda x: F.dropout(x, P),
    "F.dropout by keyword": lambda x: F.dropout(input=x, p=P, training=True),
    "F.dropout(inplace=True)": lambda x: F.dropout(x.clone(), P, True, True),
    "torch.dropout": lambda x: torch.dropout(x, P, True),
    "torch.dropout_": lambda x: torch.dropout_(x.clone(), P, True),
    "nn.functional.dropout on a view": lambda x: nn.functional.dropout(x.transpose(1, 2), P).transpose(1, 2),
}


@pytest.mark.parametrize("written", DROPOUTS)
def test_every_way_of_writing_dropout_computes_the_stand_in(x, written):
    with train_mode.StandInDropout():
        result = DROPOUTS[written](x)
    torch.testing.assert_close(result, train_mode.stand_in(x, P), rtol=0, atol=0)
    assert not torch.equal(result, x), "the stand-in changes what it is given"


@pytest.mark.parametrize(
    "off",
    [
        lambda x: nn.Dropout(P).eval()(x),
        lambda x: F.dropout(x, P, training=False),
        lambda x: nn.Dropout(0.0)(x),
        lambda x: torch.dropout(x, 0.0, True),
    ],
    ids=["eval mode", "training=False", "p=0 module", "p=0 function"],
)
def test_dropout_that_is_off_returns_its_input(x, off):
    with train_mode.StandInDropout():
        torch.testing.assert_close(off(x), x, rtol=0, atol=0)


def test_the_stand_in_is_elementwise_so_layout_and_splitting_never_change_it(x):
    whole = train_mode.stand_in(x, P)
    heads = torch.cat([train_mode.stand_in(part, P) for part in x.chunk(3, dim=1)], dim=1)
    transposed = train_mode.stand_in(x.transpose(-1, -2).contiguous(), P).transpose(-1, -2)
    assert torch.equal(whole, heads) and torch.equal(whole, transposed)


def test_the_stand_in_tells_places_and_probabilities_apart(x):
    linear = nn.Linear(5, 5, dtype=torch.float64)
    before, after = linear(train_mode.stand_in(x, P)), train_mode.stand_in(linear(x), P)
    assert not torch.allclose(before, after), "dropout before a linear layer and after it must differ"
    assert not torch.allclose(train_mode.stand_in(x, 0.1), train_mode.stand_in(x, 0.2))
    assert not torch.allclose(train_mode.stand_in(train_mode.stand_in(x, P), P), train_mode.stand_in(x, P)), (
        "twice is not once"
    )


def test_the_stand_in_never_stops_a_gradient(x):
    leaf = x.clone().requires_grad_()
    train_mode.stand_in(leaf, P).sum().backward()
    assert leaf.grad.min() >= 1 - P - 1e-12 and leaf.grad.max() <= 1 + P + 1e-12


def test_other_functions_run_as_they_would(x):
    with train_mode.StandInDropout():
        assert torch.equal(torch.relu(x), x.clamp(min=0)) and torch.equal(F.softmax(x, -1), x.softmax(-1))


def test_a_run_trains_the_module_and_reports_every_gradient():
    torch.manual_seed(0)
    module = nn.Sequential(nn.Linear(4, 4), nn.Dropout(P), nn.Linear(4, 2)).double()
    module[2].bias.requires_grad_(False)
    unused = nn.Parameter(torch.zeros(1, dtype=torch.float64))
    module.register_parameter("unused", unused)
    x = torch.randn(3, 4, dtype=torch.float64)
    upstream = torch.randn(3, 2, dtype=torch.float64)
    result, args, _, graph = train_mode.run(module.eval(), [x], {}, [upstream])
    assert module.training and graph == [True]
    expected = module[2](train_mode.stand_in(module[0](x), P))
    torch.testing.assert_close(result, expected)
    leaf = x.clone().requires_grad_()
    (module[2](train_mode.stand_in(module[0](leaf), P)) * upstream).sum().backward()
    torch.testing.assert_close(args[0].grad, leaf.grad)
    gradients = train_mode.parameter_gradients(module)
    assert gradients["2.bias"] == FROZEN and gradients["unused"] is None and gradients["0.weight"] is not None


def test_an_output_cut_from_the_graph_is_reported_not_differentiated():
    x = torch.randn(2, 3, dtype=torch.float64)
    _, args, _, graph = train_mode.run(
        lambda t: (t * 2, (t * 3).detach()), [x], {}, [torch.ones(2, 3), torch.ones(2, 3)]
    )
    assert graph == [True, False]
    torch.testing.assert_close(args[0].grad, torch.full((2, 3), 2.0, dtype=torch.float64))


def test_code_that_changes_its_input_in_place_trains_as_it_would_in_a_model():
    x = torch.randn(2, 3, dtype=torch.float64)
    _, args, _, _ = train_mode.run(lambda t: t.mul_(3), [x], {}, [torch.ones(2, 3)])
    torch.testing.assert_close(args[0].grad, torch.full((2, 3), 3.0, dtype=torch.float64))


class SharedLayers(nn.Module):
    """A feed-forward block written as an nn.Sequential whose layers are also kept under the contract's names:
    named_parameters() lists each shared layer under its first name (net.0) alone."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.GELU(), nn.Linear(8, 4), nn.Dropout(P))
        self.linear1, self.linear2, self.dropout = self.net[0], self.net[2], self.net[3]

    def forward(self, x):
        return self.net(x)


def test_the_contracts_names_are_attribute_paths():
    """Found under both names (it was 0/5, "FeedForward has no parameter linear1.weight"), loaded, and trained."""
    from autograder.engine.child import runtime

    module = SharedLayers()
    given = {name: torch.full(tuple(p.shape), 0.5).numpy() for name, p in module.linear1.named_parameters("linear1")}
    given |= {name: torch.full(tuple(p.shape), 0.25).numpy() for name, p in module.linear2.named_parameters("linear2")}
    runtime.load_parameters(module, given)
    assert torch.equal(module.net[0].weight, torch.full((8, 4), 0.5)) and torch.equal(
        module.net[2].bias, torch.zeros(4) + 0.25
    )
    module(torch.ones(2, 4)).sum().backward()
    gradients = train_mode.parameter_gradients(module)
    assert gradients["linear1.weight"] is module.net[0].weight.grad is not None
    module.extra = nn.Parameter(torch.zeros(1))
    with pytest.raises(LookupError, match="has parameters SPEC does not name: extra$"):
        runtime.load_parameters(module, given)
