"""Plain-data form of a :class:`CreatureSpec` (what YAML and JSON files hold).

``spec_to_dict`` writes only the fields that differ from their defaults, so
files stay short; ``spec_from_dict`` rejects unknown keys and wrong types with
the field path. ``spec_from_dict(spec_to_dict(s)) == s`` for every valid spec.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from gaitforge.errors import SpecError, brief
from gaitforge.creatures.spec import (
    MAX_BONES, Bone, Constraint, ContactPoint, CouplingSpring, CreatureSpec, Inertial, Joint, Shape,
)

_TUPLE_FIELDS = {"fromto", "half_sizes", "radii", "pos", "quat", "com", "inertia", "axis",
                 "range", "rgba", "point"}


def _check_keys(path: str, data: Any, cls) -> dict:
    if not isinstance(data, dict):
        raise SpecError(path, f"must be a mapping, got {type(data).__name__} {brief(data)}")
    allowed = [f.name for f in dataclasses.fields(cls)]
    for key in data:
        if key not in allowed:
            where = f"{path}.{key}" if path else str(key)
            raise SpecError(where, f"unknown key {brief(key)} (valid keys: {', '.join(allowed)})")
    return data


def _number_tuple(path: str, value: Any) -> tuple:
    if not isinstance(value, (list, tuple)):
        raise SpecError(path, f"must be a list of numbers, got {brief(value)}")
    out = []
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise SpecError(f"{path}[{i}]", f"must be a number, got {brief(v)}")
        out.append(float(v))
    return tuple(out)


def _scalar(path: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(path, f"must be a number, got {brief(value)}")
    return float(value)


def _build(path: str, data: Any, cls, nested: dict | None = None):
    data = dict(_check_keys(path, data, cls))
    nested = nested or {}
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            continue
        value = data[f.name]
        fpath = f"{path}.{f.name}" if path else f.name
        if f.name in nested:
            kwargs[f.name] = nested[f.name](fpath, value)
        elif value is None:
            kwargs[f.name] = None
        elif f.name in _TUPLE_FIELDS:
            kwargs[f.name] = _number_tuple(fpath, value)
        elif f.name in ("stiffness", "rest") and isinstance(value, (list, tuple)):
            kwargs[f.name] = _number_tuple(fpath, value)
        elif f.type in ("float", "float | None") or f.name in (
                "stiffness", "rest", "damping", "armature", "density", "mass", "radius",
                "friction", "ground_clearance", "timestep"):
            kwargs[f.name] = _scalar(fpath, value)
        elif f.type == "bool":
            if not isinstance(value, bool):
                raise SpecError(fpath, f"must be true or false, got {brief(value)}")
            kwargs[f.name] = value
        else:
            if not isinstance(value, str):
                raise SpecError(fpath, f"must be a string, got {brief(value)}")
            kwargs[f.name] = value
    missing = [f.name for f in dataclasses.fields(cls)
               if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
               and f.name not in kwargs]
    if missing:
        where = f"{path}.{missing[0]}" if path else missing[0]
        raise SpecError(where, "is required")
    return kwargs


def _list(path: str, value: Any, item) -> tuple:
    if not isinstance(value, list):
        raise SpecError(path, f"must be a list, got {brief(value)}")
    return tuple(item(f"{path}[{i}]", v) for i, v in enumerate(value))


def _shape(path: str, d: Any) -> Shape:
    return Shape(**_build(path, d, Shape))


def _joint(path: str, d: Any) -> Joint:
    return Joint(**_build(path, d, Joint))


def _inertial(path: str, d: Any) -> Inertial:
    return Inertial(**_build(path, d, Inertial))


def _bone(path: str, d: Any) -> Bone:
    kw = _build(path, d, Bone, {
        "shapes": lambda p, v: _list(p, v, _shape),
        "joint": _joint,
        "inertial": lambda p, v: None if v is None else _inertial(p, v),
    })
    if "parent" not in (d or {}):
        raise SpecError(f"{path}.parent", "is required (null for the root bone)")
    kw.setdefault("shapes", ())
    b = Bone(**kw)
    b.validate(path)
    return b


def _joint_pairs(path: str, value: Any) -> tuple:
    if not isinstance(value, dict) or not value:
        raise SpecError(path, f"must be a mapping of joint name to coefficient, got {brief(value)}")
    return tuple((str(k), _scalar(f"{path}.{k}", v)) for k, v in value.items())


def spec_from_dict(data: Any) -> CreatureSpec:
    """Validate plain data (as loaded from YAML/JSON) into a :class:`CreatureSpec`."""
    bones = data.get("bones") if isinstance(data, dict) else None
    if isinstance(bones, list) and len(bones) > MAX_BONES:  # before building thousands of bones
        raise SpecError("bones", f"at most {MAX_BONES} bones are supported, got {len(bones)}")
    kw = _build("", data, CreatureSpec, {
        "bones": lambda p, v: _list(p, v, _bone),
        "contacts": lambda p, v: _list(p, v, lambda pp, vv: ContactPoint(**_build(pp, vv, ContactPoint))),
        "constraints": lambda p, v: _list(p, v, lambda pp, vv: Constraint(**_build(pp, vv, Constraint))),
        "springs": lambda p, v: _list(p, v, lambda pp, vv: CouplingSpring(**_build(
            pp, vv, CouplingSpring, {"joints": _joint_pairs}))),
    })
    return CreatureSpec(**kw)


def _plain(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj):
        out = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            default = f.default if f.default is not dataclasses.MISSING else (
                f.default_factory() if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING)
            if f.name == "parent" or (f.name == "type" and isinstance(obj, Joint)):
                # always written: null marks the root; the joint type is worth seeing
                out[f.name] = value
                continue
            if default is not dataclasses.MISSING and value == default:
                continue
            if f.name == "joints" and isinstance(obj, CouplingSpring):
                out[f.name] = {k: float(c) for k, c in value}
                continue
            out[f.name] = _plain(value)
        return out
    if isinstance(obj, tuple):
        return [_plain(v) for v in obj]
    if isinstance(obj, float):
        return float(obj)
    return obj


def spec_to_dict(spec: CreatureSpec) -> dict:
    """Plain data (dicts, lists, floats, strings) for YAML/JSON."""
    return _plain(spec)
