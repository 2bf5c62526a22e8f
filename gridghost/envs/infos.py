"""What the AEC env's infos say after every reset and half-turn, for both sides: the numeric
infos (the default, a fixed key set of numbers, bools and arrays) or the reference's
(``reference_infos=True``, the text values and keys ``custom_grid_env`` wrote).

No caller can change the env through an info. After a half-turn, an info's arrays are read-only
(the masks are the board's rows, ``actual_moves`` one array per agent move seen): no copy on the hot
path, and writing into one raises. After a reset, once per episode, every array is a fresh,
writable copy of that info's own (:func:`writable_copy`): trainers build their specs from the
reset's infos, and TorchRL's ``torch.as_tensor`` warns about read-only arrays there.

:class:`InfoPublisher` writes them; :class:`~gridghost.envs.aec.GridGhostEnv` mixes it in and
chooses one of its two publishers once, at construction.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

import numpy as np

from gridghost.config.settings import OUTCOME_INFO_KEYS
from gridghost.core.names import ACTION_NAMES, AGENT, GHOST
from gridghost.core.rules import Board, GameState, Outcome, Side, describe_moves, read_only
from gridghost.envs.binding import MapBinding
from gridghost.sensing.sensors import Sensor

_ONGOING, _CAUGHT = Outcome.ONGOING, Outcome.CAUGHT
#: The keys of every numeric info (the default), in order, whatever the side and whether after a
#: reset or a half-turn; each sensor's keys, the belief filter's ``estimated_pos`` and
#: ``estimated_cell``, and the expert's ``expert_action`` follow when the env has them.
NUMERIC_INFO_KEYS: tuple[str, ...] = (
    "to_move", "mover", "distance", "slipped", "intended_action", "actual_moves", "reached_goal", "caught_by_ghost",
    "action_mask",
)
#: Numeric infos' ``mover`` after a reset, and ``intended_action`` / ``expert_action`` when there is none.
NO_ACTION = -1
#: What a numeric info may hold: numbers, bools and NumPy arrays (of fixed shape per env).
_NUMERIC_VALUES = (int, float, bool, np.number, np.bool_, np.ndarray)
#: :attr:`InfoPublisher._pending_infos` when there are no numeric infos to build (see there).
_NO_INFOS = object()
#: How many publishes after a read of pending numeric infos build them at once (see InfoPublisher._built_infos).
_EAGER_PUBLISHES = 64
#: Numeric infos' codes of the sides (``to_move``, ``mover``; ``None``: no mover, after a reset).
_SIDE_CODES: dict[str | None, int] = {AGENT: int(Side.AGENT), GHOST: int(Side.GHOST), None: NO_ACTION}
#: Numeric infos' ``(reached_goal, caught_by_ghost)`` by outcome.
_ENDINGS = {Outcome.ONGOING: (False, False), Outcome.GOAL: (True, False), Outcome.CAUGHT: (False, True)}
#: How many of a team's extra info entries the infos keep (see InfoPublisher._team_entry).
_ENTRIES_KEPT = 4096


def writable_copy(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` with every NumPy array in it replaced by a fresh, writable copy (what the infos
    after a reset hold).

    >>> info = writable_copy({"mover": -1, "action_mask": read_only(np.array([0, 1, 1, 0], dtype=np.int8))})
    >>> info["action_mask"].flags.writeable, info["mover"]
    (True, -1)
    """
    return {key: value.copy() if type(value) is np.ndarray else value for key, value in info.items()}


def _code(sensor: Sensor, reading: Any) -> int:
    """A sensor's reading that is not a number, for a numeric info: its position in the sensor's
    ``possible_measurements()``."""
    try:
        return sensor.code(reading)
    except NotImplementedError:
        raise TypeError(f"sensor {sensor!r} reads {reading!r}, which is not a number, bool or array, and it lists no "
                        "possible_measurements() to number its readings by; numeric infos (the default) need one or "
                        "the other: pass reference_infos=True for the sensor's own values") from None


def _numeric(value: Any, key: str, sensor: Sensor) -> Any:
    """A sensor's extra reading ``value`` for a numeric info: kept if it is a number, a bool or an
    array, else a TypeError (the sensor reports text: use ``reference_infos=True``)."""
    if isinstance(value, _NUMERIC_VALUES):
        return value
    raise TypeError(f"sensor {sensor!r} reports {key!r} = {value!r}, which is not a number, bool or array; numeric "
                    "infos (the default) hold only those: pass reference_infos=True for the sensor's own values")


def _expert_action(expert: dict[str, bytes], board: Board, game: GameState, next_turn: str, side: str) -> int:
    """The expert's move for ``side`` in ``game``, or :data:`NO_ACTION` when the side does not
    move next, the game has ended or the expert does not advise it."""
    table = expert.get(side)
    if table is None or side != next_turn or game.outcome != _ONGOING:
        return NO_ACTION
    return table[game.agent * board.num_cells + game.ghost]


class InfoPublisher(MapBinding):
    """Publishes ``self.infos`` for both sides after a reset (``mover=None``) or a half-turn.

    A part of :class:`~gridghost.envs.aec.GridGhostEnv`, whose game state it reads (as
    :class:`~gridghost.envs.binding.MapBinding` declares it): the board, the agent's last move
    (``_last_move``), the action masks when infos hold them (``_info_masks``), the sensors'
    latest readings (``_readings``, ``_sensor_keys``), the belief filter's estimate
    (``belief_filter``, ``_estimate``), the expert's tables (``_expert``) and the ghosts' names
    (``_ghost_names``).
    """

    #: The state the current numeric infos describe, while they are not built yet (see
    #: :meth:`_built_infos`); ``None`` once built (``infos`` is then an instance attribute), and
    #: :data:`_NO_INFOS` before the first reset and with the reference infos.
    _pending_infos: tuple[Any, ...] | object | None = _NO_INFOS
    #: How many more publishes build the numeric infos at once, as a loop that has just read
    #: them will read them again; then one is left pending, to see whether the loop still reads.
    _eager_left: int = 0
    #: The sensors' readings whose numeric entries are :attr:`_sensor_info` (see :meth:`_publish`).
    _coded_readings: dict[str, Any] | None = None
    _sensor_info: dict[str, Any]
    #: The start of the numeric infos of the latest agent move: its template with the readings'
    #: entries (and every later key), and the readings' entries, move and estimate it was made
    #: for (see :meth:`_numeric_infos`).
    _base_info: dict[str, Any] | None = None
    _base_of: dict[str, Any] | None = None
    _base_move: tuple[int, tuple[int, ...]] | None = None
    _base_estimate: dict[str, Any] | None = None
    #: The start of the numeric infos by the agent's last ``(action, moves)`` (see :meth:`_template`).
    _templates: dict[tuple[int, tuple[int, ...]] | None, dict[str, Any]] | None = None

    def _built_infos(self) -> dict[str, dict[str, Any]]:
        """Build the numeric infos :meth:`_publish` left pending, as the plain ``infos``
        attribute, and return them (a read of ``infos`` while they are pending calls this, through
        the env's class attribute ``infos``).

        The numeric infos are built on first read after a reset or half-turn, from the state
        :meth:`_publish` kept: a loop that never reads them (most half-turns of a single-agent
        view, whose opponent's infos nobody reads) does not pay for them; after a read, the
        next :data:`_EAGER_PUBLISHES` are built at once, as a loop that reads them every
        half-turn gains nothing from the wait. Once built, ``infos`` is an instance attribute,
        read at no cost. They are the same dicts, with the same values, either way.
        """
        pending = self._pending_infos
        self._pending_infos = None
        self.infos = infos = self._numeric_infos(pending)  # type: ignore[arg-type]  # a tuple: the caller checks
        self._eager_left = _EAGER_PUBLISHES  # a loop that reads them: build the next ones at once
        return infos

    def _build_pending_infos(self) -> None:
        """Build the numeric infos not built yet: what :meth:`_numeric_infos` reads of the map
        (the board, the masks, the expert) is about to change. The env calls it at every map
        change, the first one in its constructor."""
        if type(self._pending_infos) is tuple:
            self._built_infos()
        # Instance attributes, not the class's defaults, which CPython 3.11 reads more slowly.
        self._pending_infos = self._pending_infos if self._pending_infos is None else _NO_INFOS
        self._eager_left = self._eager_left
        self._base_info = None
        self._entries: dict[tuple[Any, ...], Any] = {}
        self._no_catchers = (False,) * self.config.ghosts  # a team's catchers while nobody is caught
        if self._templates is None:
            self._templates = {}

    def _publish(self, game: GameState, next_turn: str, mover: str | None) -> None:
        """Publish fresh info dicts for both agents after a reset (``mover=None``) or a half-turn:
        the numeric ones, or :meth:`_publish_reference`'s (the constructor chooses).

        The numeric infos are built when :attr:`infos` is first read; what they read is kept
        here. The sensors' readings are numbered here, so a sensor reading that numeric infos
        cannot hold raises in the ``reset`` or ``step`` that read it.
        """
        readings = self._readings
        if readings is not self._coded_readings:  # new readings: after a reset or an agent move
            self._sensor_info = self._code_readings(readings)
            self._coded_readings = readings
        pending = (game, next_turn, mover, self._last_move, self._sensor_info, self._estimate)
        if self._eager_left:  # infos were read lately: build these now (no round trip through pending)
            self._eager_left -= 1
            self.infos = self._numeric_infos(pending)
        else:
            if self._pending_infos is None:  # built ones: the next read builds these (the env's class attribute)
                # del, not __dict__.pop: reading __dict__ would make every attribute of the env slower to read
                del self.infos
            self._pending_infos = pending

    def _code_readings(self, readings: dict[str, Any]) -> dict[str, Any]:
        """The sensors' entries of a numeric info, in order: each reading as a number, bool or
        array (a reading that is none of these as its code, :func:`_code`).

        Raises:
            TypeError, ValueError: a reading a numeric info cannot hold (see :func:`_code`, :func:`_numeric`).
        """
        entries: dict[str, Any] = {}
        for sensor, name, declared in self._sensor_keys:
            reading = readings[name]
            entries[name] = reading if isinstance(reading, _NUMERIC_VALUES) else _code(sensor, reading)
            if declared is not None:
                for key in declared:
                    if key != name:
                        entries[key] = _numeric(readings[key], key, sensor)
        return entries

    def _numeric_infos(self, pending: tuple[Any, ...], side: str | None = None) -> dict[str, Any]:
        """Every agent's numeric info of the state :meth:`_publish` kept (``pending``), by agent
        name; with ``side`` (an agent's name), that agent's info alone, its arrays writable copies
        of its own (what ``writable_copy(env.infos[side])`` gives, without building the others':
        the single-agent views' info)."""
        # one tuple, not arguments: a plain call, which CPython runs without a C round trip
        game, next_turn, mover, last_move, sensor_info, estimate = pending
        # the map's: the env builds pending infos before it changes map (_build_pending_infos)
        board, masks, expert = self.board, self._info_masks, self._expert
        base = self._base_info
        agent, cells = game.agent, game.ghosts
        if (base is None or self._base_of is not sensor_info or self._base_move is not last_move
                or self._base_estimate is not estimate):
            base = self._cycle_base(last_move, sensor_info, estimate, len(cells) > 1)
        info = base.copy()
        info["to_move"] = _SIDE_CODES[next_turn]
        info["mover"] = _SIDE_CODES[mover]
        if len(cells) == 1:  # one ghost, the scalar fast path: the agent's distance is the ghost's
            info["distance"] = board.distance[agent][cells[0]]
            team_entries = None
        else:  # a team: its entries by the ghosts' distances (itemgetter: the cheapest generic pick)
            distances = itemgetter(*cells)(board.distance[agent])
            if game.outcome != _CAUGHT:
                entry = self._entries.get(distances) or self._team_entry(distances, self._no_catchers)
            else:
                caught = tuple(cell == agent for cell in cells)
                entry = self._entries.get((distances, caught)) or self._team_entry(distances, caught)
            info["distance"], info["ghost_distances"], info["catchers"], team_entries = entry
        if game.outcome != _ONGOING:
            info["reached_goal"], info["caught_by_ghost"] = _ENDINGS[game.outcome]
        if masks is not None:  # read-only rows shared per cell: cheap, and no caller can corrupt them
            info["action_mask"] = masks[agent]
        if estimate is not None:  # set with a belief filter, by every reset and agent move
            info["estimated_pos"] = read_only(np.array(estimate["float_pos"], dtype=np.float64))
            info["estimated_cell"] = read_only(np.array(estimate["cell_pos"], dtype=np.int64))
        if side is not None:  # every array a copy of its own: as writable_copy(info), without its loop
            info["actual_moves"] = info["actual_moves"].copy()
            if masks is not None:  # the side's own cell's
                info["action_mask"] = (masks[agent] if side == AGENT else
                                       masks[cells[self._ghost_names.index(side)]]).copy()
            if team_entries is not None and side != AGENT:
                info["distance"] = distances[self._ghost_names.index(side)]
            for key, value in sensor_info.items():
                if type(value) is np.ndarray:
                    info[key] = value.copy()
            if estimate is not None:
                info["estimated_pos"] = info["estimated_pos"].copy()
                info["estimated_cell"] = info["estimated_cell"].copy()
            if team_entries is not None:
                for key, value in team_entries.items():
                    info[key] = value.copy()
            if expert:
                info["expert_action"] = _expert_action(expert, board, game, next_turn, side)
            return info
        if team_entries is None:  # one ghost, the scalar fast path (no ghost's info without it in the game)
            if self.use_ghost:
                ghost_info = info.copy()
                if masks is not None:
                    ghost_info["action_mask"] = masks[cells[0]]
                infos = {AGENT: info, GHOST: ghost_info}
            else:
                infos = {AGENT: info}
        else:
            infos = {AGENT: info}
            for index, name in self._ghost_indices:  # cheaper than a zip of names, cells and distances
                infos[name] = ghost_info = info.copy()
                ghost_info["distance"] = distances[index]
                if masks is not None:
                    ghost_info["action_mask"] = masks[cells[index]]
        if expert:
            for name, entry in infos.items():
                entry["expert_action"] = _expert_action(expert, board, game, next_turn, name)
        if mover is None:  # after a reset: writable copies (see the module docstring)
            infos = {name: writable_copy(entry) for name, entry in infos.items()}
        return infos

    def _cycle_base(self, last_move: tuple[int, tuple[int, ...]] | None, sensor_info: dict[str, Any],
                    estimate: dict[str, list[Any]] | None, team: bool) -> dict[str, Any]:
        """The start of every numeric info until the agent's next move, kept as :attr:`_base_info`:
        every key in order, with the agent's last move's entries and its readings'. Every info of a
        cycle starts from a copy of it, which beats a dict display; the keys set per publish (the
        estimate's, a team's) are there too, so a publish replaces values and never grows its dict
        (a resize costs more than the rest of a store)."""
        try:
            base = self._templates[last_move].copy()  # type: ignore[index]
        except (KeyError, TypeError):  # a move not seen yet (TypeError: none yet)
            base = self._template(last_move, self._info_masks is not None).copy()
        base.update(sensor_info)
        if estimate is not None:
            base["estimated_pos"] = base["estimated_cell"] = None
        if team:
            base["ghost_distances"] = base["catchers"] = None
        self._base_info, self._base_of, self._base_move, self._base_estimate = base, sensor_info, last_move, estimate
        return base

    def _team_entry(self, distances: tuple[int, ...], caught: tuple[bool, ...]) -> tuple[Any, ...]:
        """A team's info entries for the ghosts' ``distances`` to the agent and whether each caught
        it: the agent's distance to its nearest ghost (-1 when it reaches none) and the team's
        extra entries (``ghost_distances``, ``catchers``: read-only arrays), each alone and then
        as a dict. They are kept per
        value, as a loop that reads every info meets the same few again and again: a publish
        costs one lookup (in :meth:`_numeric_infos`)."""
        cache = self._entries
        if len(cache) >= _ENTRIES_KEPT:
            cache.clear()
        extra = {"ghost_distances": read_only(np.array(distances, dtype=np.int64)),
                 "catchers": read_only(np.array(caught, dtype=np.int8))}
        entry = (min((distance for distance in distances if distance >= 0), default=-1), *extra.values(), extra)
        # kept by the distances alone while nobody is caught (the common case: one lookup of a flat tuple)
        cache[distances if caught is self._no_catchers else (distances, caught)] = entry
        return entry

    def _template(self, last_move: tuple[int, tuple[int, ...]] | None, with_mask: bool) -> dict[str, Any]:
        """The start of every numeric info after the agent's last ``(action, moves)``: its keys up
        to ``action_mask`` in order, with the move's entries (``slipped``, ``intended_action``,
        ``actual_moves``) and those of an ongoing game; kept in :attr:`_templates`."""
        intended, moved = (NO_ACTION, ()) if last_move is None else last_move
        moves = np.full(self.kernel.max_moves, NO_ACTION, dtype=np.int8)  # -1 pads to the longest outcome
        moves[: len(moved)] = moved
        template: dict[str, Any] = {
            "to_move": NO_ACTION, "mover": NO_ACTION, "distance": 0,
            "slipped": last_move is not None and moved != (intended,), "intended_action": intended,
            "actual_moves": read_only(moves), "reached_goal": False, "caught_by_ghost": False,
        }
        if with_mask:
            template["action_mask"] = None
        self._templates[last_move] = template  # type: ignore[index]  # a dict since the first map (_build_pending_infos)
        return template

    def _publish_reference(self, game: GameState, next_turn: str, mover: str | None) -> None:
        """:meth:`_publish` with ``reference_infos=True``: the infos ``custom_grid_env`` wrote."""
        agent, (ghost,) = game.agent, game.ghosts  # one ghost: the reference's infos serve no team
        distance = self.board.distance[agent][ghost]
        masks = self.board.action_mask
        last_move = self._last_move
        if last_move is None:
            agent_info = {**self._readings, "ghost_distance": distance, "current_turn": next_turn}
        else:
            slipped, actual = describe_moves(*last_move)
            agent_info = {"slipped": slipped, "intended_action": ACTION_NAMES[last_move[0]], "actual_action": actual,
                          **self._readings, "ghost_distance": distance, "current_turn": next_turn}
        ghost_info = {"agent_distance": distance, "current_turn": next_turn}
        if mover is not None:
            agent_info["mover"] = ghost_info["mover"] = mover
        estimate = self._estimate
        if estimate is not None:  # a fresh copy per info: the same move's estimate is published twice
            agent_info["estimated_pos"] = {"float_pos": estimate["float_pos"][:], "cell_pos": estimate["cell_pos"][:]}
        if game.outcome != _ONGOING:
            agent_info[OUTCOME_INFO_KEYS[game.outcome]] = ghost_info[OUTCOME_INFO_KEYS[game.outcome]] = True
        # Masks are read-only arrays shared per cell: cheap, and no caller can corrupt them.
        agent_info["action_mask"] = masks[agent]
        ghost_info["action_mask"] = masks[ghost]
        if self._expert and game.outcome == _ONGOING and next_turn in self._expert:
            (agent_info if next_turn == AGENT else ghost_info)["expert_action"] = _expert_action(
                self._expert, self.board, game, next_turn, next_turn)
        if mover is None:  # after a reset: writable copies, as the numeric infos
            agent_info, ghost_info = writable_copy(agent_info), writable_copy(ghost_info)
        self.infos = {AGENT: agent_info, GHOST: ghost_info} if self.use_ghost else {AGENT: agent_info}
