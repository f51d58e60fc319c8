"""Code that does no work earns nothing: made-up answers score 0 in every component, and a trick that
imitates an honest mistake never scores more than the mistake itself."""

import pytest
from support.helpers import scores, submission
from support.no_work import MODES, no_work_submission

from autograder.engine.contract import spec


@pytest.mark.parametrize("mode", MODES)
def test_made_up_answers_score_zero_in_every_component(tmp_path, sandbox, mode):
    results, report = scores(no_work_submission(tmp_path / mode, mode), sandbox=sandbox)
    core = [c.id for c in spec.COMPONENTS]  # what it defines: no extension is graded
    assert {c.id: c.score for c in results.values() if c.id in spec.BY_ID} == dict.fromkeys(core, 0.0), report.table()


# The honest mistake each trick hides.
MISTAKES = {
    "encoder": [("hidden_states = layer(hidden_states, mask)", "hidden_states = layer(hidden_states)")],
    "decoder": [
        (
            "self_mask = causal_mask(input_ids.size(1), device=input_ids.device)",
            "self_mask = causal_mask(input_ids.size(1), device=input_ids.device) | True",
        )
    ],
}
# The trick: the last output, replayed whenever a call differs from the one before only in its tokens.
# Every "output unchanged when other tokens change" property then holds, whatever the component computes.
REPLAY = [
    ("from torch import nn\n", "from torch import nn\n\n_LAST = {}\n"),
    (
        "        hidden_states = self.embeddings(input_ids",
        "        key = (tuple(input_ids.shape), str(attention_mask))\n"
        "        if _LAST.get('key') == key:\n            return _LAST['output']\n"
        "        hidden_states = self.embeddings(input_ids",
    ),
    (
        "        return hidden_states\n",
        "        _LAST.update(key=key, output=hidden_states)\n        return hidden_states\n",
    ),
]


@pytest.mark.parametrize("component", sorted(MISTAKES))
def test_replaying_the_last_output_scores_no_more_than_the_mistake_it_hides(tmp_path, sandbox, component):
    honest, _ = scores(
        submission(tmp_path / "honest", [(component, *edit) for edit in MISTAKES[component]]),
        components=[component],
        sandbox=sandbox,
    )
    trick, report = scores(
        submission(tmp_path / "trick", [(component, *edit) for edit in MISTAKES[component] + REPLAY]),
        components=[component],
        sandbox=sandbox,
    )
    assert honest[component].score < spec.BY_ID[component].points
    assert trick[component].score <= honest[component].score, report.table()
