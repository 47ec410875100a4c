"""core.strictjson's words for what it found: a user reads them in every file error."""

from brickyard.core import strictjson


def test_an_object_read_from_a_file_is_called_an_object_in_messages():
    """The reader's own dict subclass never leaks its class name ("_Object") into a user's error."""
    value, problems = strictjson.parse('{"a": {"b": 1}}')
    assert problems == []
    assert strictjson.kind(value["a"]) == "an object"
    assert strictjson.kind(True) == "true/false"
    assert strictjson.kind(3) == "an integer"
    assert strictjson.kind([]) == "an array"
