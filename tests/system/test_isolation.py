"""Graded in the jail, a component finds no reference of its own in memory, and a crash inside the kit's code that
its line calls is told with the student's line and none of the kit's. (Which references a child holds, and how the
student's additions join them: tests/unit/test_isolation.py.)"""

from support.helpers import line_of, scores, submission

from autograder.engine.contract import spec


def test_reference_is_not_in_memory_for_a_student_to_find(tmp_path, sandbox):
    """A student who searches memory for another MultiHeadAttention to call finds none."""
    cheat = (
        "import gc\n"
        "        found = [o for o in gc.get_objects() if isinstance(o, type) and o.__name__ == 'MultiHeadAttention' and o is not type(self)]\n"
        "        if not found:\n"
        "            raise LookupError('no reference in memory')\n"
        "        return found[0].forward(self, hidden_states, mask, key_value_states)"
    )
    path = submission(
        tmp_path / "cheat",
        [("multihead", "source = hidden_states if key_value_states is None else key_value_states", cheat)],
    )
    # gc is held for review (issue 34); accepted, as if the check missed it, it still finds nothing.
    results, _ = scores(path, components=["multihead"], accept_flagged=True, sandbox=sandbox)
    assert results["multihead"].score == 0
    assert "LookupError: no reference in memory" in results["multihead"].feedback()


def test_a_crash_inside_the_kits_code_quotes_the_students_line_and_none_of_the_kits(tmp_path, sandbox):
    """The student passes a float mask to the attention of the kit, which fails on it."""
    path = submission(
        tmp_path / "s",
        [
            (
                "encoder",
                "mask = None if attention_mask is None else padding_mask(attention_mask)",
                "mask = None if attention_mask is None else attention_mask[:, None, None, :].float()",
            )
        ],
    )
    results, _ = scores(path, components=["encoder"], sandbox=sandbox)
    feedback = results["encoder"].feedback()
    line = line_of("encoder", "attended, _ = self.attention(hidden_states, mask)")
    assert f"encoder.py, line {line}: attended, _ = self.attention(hidden_states, mask)" in feedback
    assert "inside another part, the kit's, that this line calls" in feedback
    kit_code = [
        line.strip()
        for name in ("attention.py", "multihead.py")
        for line in (spec.SOLUTIONS / name).read_text().splitlines()
        if len(line.strip()) > 12
    ]
    assert not [line for line in kit_code if line in feedback]
