"""The independent client of the CrossClientValues scenario (crossclient_test.go).

Run by the Go test as `$KANDRA_PYTHON crossclient.py` with the Apache
Cassandra Python driver (cassandra-driver 3.30.1, see scripts/pyclient.sh).
It reads one JSON document on stdin:

    {"host": ..., "port": ..., "keyspace": ..., "protocol": 5,
     "ops": [{"id": ..., "op": "select" | "insert" | "add" | "exec", ...}, ...]}

runs the operations in order and prints {"results": [...]} on stdout, one
result per operation. Values travel in the canonical form documented at the
top of crossclient_test.go; a column's CQL type comes with it, in the lower-case
form of internal/cqlorder ("list<set<int>>", no frozen).

  select  {table, columns: [[name, type]...], where: [[name, type, canon]...]}
          -> {rows: [[canon...]...], client_limit: {name: why}}
  insert  {table, columns: [[name, type]...], values: [canon...], ordered_sets}
          -> {client_limit: {name: why}}
  add     {table, column, delta, where}: UPDATE t SET c = c + delta
          -> {}
  exec    {cql}: a schema statement (ALTER TYPE ... ADD) -> {}

An operation may name a keyspace of its own (keyspace), and an insert may
ask for a text not prepared before (fresh: after ALTER TYPE, so that the
driver binds the type as it is now). A user-defined type comes as
cqlorder's form, name{field type, ...}; a vector as vector<float>.

Every value goes through the driver's own types: datetime for a timestamp,
cassandra.util.Date / Time / Duration, ipaddress objects for inet,
uuid.UUID, bytes, int, float, set / list / dict. Where the driver cannot
hold a value (a timestamp outside datetime's years 1..9999, which it
decodes through a float and a datetime; a float32 signalling NaN, which a
Python float quiets), the value is read through a raw path (the driver's
pure-Python protocol handler with the timestamp and float deserializers
returning the stored int64 milliseconds and float bits) or written through
one (an int of milliseconds, which the driver takes for a timestamp;
floatAsBlob), and the column is named in client_limit with the reason.

User-defined types: the driver decodes a value as a namedtuple of the
server's fields (a field name that is no Python identifier, such as the
keyword pass, is renamed field_<i>_, so a field is read by name, else by
position), a shorter stored value padded with None; this client writes a
UDTValue, whose attributes the driver reads by the server's field names
(as it does a class given to register_user_type, which needs the schema
metadata left off here). The server keeps a set inside a user-defined
type in the order sent, so such sets go as lists in the server's order
(named in client_limit). Vectors: the driver decodes each element with
FloatType.deserialize; VectorType.deserialize is wrapped to run the
driver's own code twice, with the driver's float (what a user gets,
compared) and with the raw bits (for a signalling NaN, which a Python
float quiets: read raw); a signalling NaN is written as its bits through
FloatType.serialize.

Three things are patched so that the canonical form can be read at all:
sets decode as a list in the server's order (the driver sorts them by
Python's own order, which is not the server's for inet or uuid), an empty
value of a type other than text and blob decodes as EMPTY instead of None
(the driver maps it to None, so it could not be told from null), and the
raw path above; and the vector and float wrappers above. Nothing else of
the driver is changed. A map is read by the pairs the driver holds
(map_items), not key by key: the driver looks a key up by serializing it
again, which fails for a timestamp key read raw.

The driver logs to stderr only at ERROR; the Go test shows stderr only when
this script fails.
"""

import datetime
import ipaddress
import json
import logging
import struct
import sys
import traceback
import uuid

logging.basicConfig(level=logging.ERROR, stream=sys.stderr)
logging.getLogger("cassandra").setLevel(logging.ERROR)

import cassandra  # noqa: E402
from cassandra import cqltypes, protocol, util  # noqa: E402
from cassandra.cluster import EXEC_PROFILE_DEFAULT, Cluster, ExecutionProfile  # noqa: E402
from cassandra.policies import WhiteListRoundRobinPolicy  # noqa: E402

EPOCH = datetime.datetime(1970, 1, 1)
# The instants a datetime holds: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999Z.
PY_MIN_MS = -62135596800000
PY_MAX_MS = 253402300799999


class WireSet(list):
    """A set as the server sent it: its elements in the server's order."""


class RawMs(int):
    """A timestamp read raw: the stored int64 milliseconds."""


class RawF32(int):
    """A float read raw: the stored 32 bits."""


class RawF64(int):
    """A double read raw: the stored 64 bits."""


# Sets in the server's order, on the Cython path (DesSetType calls
# util.sortedset) and the pure-Python one (SetType.adapter).
util.sortedset = WireSet
cqltypes.SetType.adapter = WireSet
# An empty value of any type decodes as EMPTY (text and blob still decode
# as '' and b'': their empty_binary_ok is set).
cqltypes._CassandraType.support_empty_values = True


class UDTValue(object):
    """A user-defined type's value as this client writes it: an object
    with one attribute per field, which the driver's UserType.serialize
    reads by the server's field names (getattr), as it does a class given
    to cluster.register_user_type; a field the object lacks is null.
    (Registering needs the schema metadata this client leaves off; a
    tuple would be positional, and fail for a type with more fields.)"""

    def __init__(self, fields):
        for k, v in fields.items():
            setattr(self, k, v)  # setattr: a field may be a Python keyword ("pass")

    def __repr__(self):
        return "UDTValue(%r)" % (self.__dict__,)


class VectorValue(list):
    """A vector as the driver decodes it: the Python floats its own
    VectorType.deserialize gives with its own FloatType.deserialize
    (float_unpack), and the stored bits, in .bits."""


def _raw_timestamp(byts, protocol_version):
    return RawMs(struct.unpack(">q", byts)[0])


def _raw_float(byts, protocol_version):
    return RawF32(struct.unpack(">I", byts)[0])


def _raw_double(byts, protocol_version):
    return RawF64(struct.unpack(">Q", byts)[0])


_driver_float_deserialize = cqltypes.FloatType.deserialize
_driver_float_serialize = cqltypes.FloatType.serialize
_driver_vector_deserialize = cqltypes.VectorType.deserialize.__func__

# The raw path: only the pure-Python protocol handler calls these (the
# Cython one has its own deserializers), and only the raw session uses it.
cqltypes.DateType.deserialize = staticmethod(_raw_timestamp)
cqltypes.FloatType.deserialize = staticmethod(_raw_float)
cqltypes.DoubleType.deserialize = staticmethod(_raw_double)


class _DriverFloat(cqltypes.FloatType):
    """FloatType with the driver's own deserialize (not the raw one)."""

    deserialize = staticmethod(_driver_float_deserialize)


_driver_vectors = {}


def _vector_deserialize(cls, byts, protocol_version):
    """Vectors: the Cython path has no deserializer of its own for them
    (GenericDeserializer calls VectorType.deserialize, on both sessions),
    and VectorType.deserialize decodes each element with
    FloatType.deserialize, which the raw path replaces. So: the driver's
    own VectorType.deserialize run twice, once with the driver's
    FloatType.deserialize (the floats a user gets) and once with the raw
    one (the bits)."""
    if cls.subtype is not cqltypes.FloatType:
        return _driver_vector_deserialize(cls, byts, protocol_version)
    twin = _driver_vectors.get(cls)
    if twin is None:
        twin = type(cls.__name__, (cls,), {"subtype": _DriverFloat})
        _driver_vectors[cls] = twin
    v = VectorValue(_driver_vector_deserialize(twin, byts, protocol_version))
    v.bits = [int(b) for b in _driver_vector_deserialize(cls, byts, protocol_version)]
    return v


def _float_serialize(v, protocol_version):
    """A float written raw (RawF32, a signalling NaN inside a vector or a
    user-defined type, where blobAsFloat cannot go) as its bits; any other
    through the driver's own FloatType.serialize."""
    if isinstance(v, RawF32):
        return struct.pack(">I", int(v))
    return _driver_float_serialize(v, protocol_version)


cqltypes.VectorType.deserialize = classmethod(_vector_deserialize)
cqltypes.FloatType.serialize = staticmethod(_float_serialize)


# --- types --------------------------------------------------------------


def parse_type(s):
    """'map<text, list<int>>' -> ('map', [('text', []), ('list', [('int', [])])]);
    a user-defined type, 'point{x float, y double}' (cqlorder's form), ->
    ('udt', [('x', ('float', [])), ('y', ('double', []))]): its fields,
    named, in order (the type's name is not needed); 'vector<float>' ->
    ('vector', [('float', [])]) (the dimension comes from the server)."""
    pos = 0

    def ws():
        nonlocal pos
        while pos < len(s) and s[pos] == " ":
            pos += 1

    def ident():
        nonlocal pos
        ws()
        start = pos
        while pos < len(s) and s[pos] not in "<>,{} ":
            pos += 1
        return s[start:pos]

    def one():
        nonlocal pos
        name = ident()
        ws()
        args = []
        if pos < len(s) and s[pos] == "<":
            pos += 1
            args.append(one())
            ws()
            while s[pos] == ",":
                pos += 1
                args.append(one())
                ws()
            assert s[pos] == ">", s
            pos += 1
        elif pos < len(s) and s[pos] == "{":
            pos += 1
            while True:
                fname = ident()
                args.append((fname, one()))
                ws()
                if s[pos] == "}":
                    pos += 1
                    break
                assert s[pos] == ",", s
                pos += 1
            return ("udt", args)
        return (name, args)

    t = one()
    ws()
    assert pos == len(s), s
    return t


INTS = {"tinyint", "smallint", "int", "bigint", "varint", "counter"}


def is_signalling_nan32(bits):
    return bits & 0x7F800000 == 0x7F800000 and bits & 0x007FFFFF != 0 and bits & 0x00400000 == 0


# --- reading: driver value -> canonical ----------------------------------


def dt_to_ms(dt):
    """A datetime to integer ms, exactly: the driver decodes through a float
    (datetime_from_timestamp(ms / 1000.0)), so the microseconds can be a few
    off the stored millisecond; round to the nearest one."""
    if dt.tzinfo is not None:
        dt = dt.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    d = dt - EPOCH
    us = (d.days * 86400 + d.seconds) * 1000000 + d.microseconds
    return (us + 500) // 1000


def map_items(v):
    """The (key, value) pairs of v, a map as the driver decodes it, in the
    server's order. The driver's map (util.OrderedMapSerializedKey) finds
    a key's value by serializing the key again, which items() does for
    each key, and DateType.serialize refuses the raw path's RawMs (it takes
    a number only of type int or float exactly): a map<timestamp, ...>
    read raw would fail. So its pairs are read as it holds them."""
    if isinstance(v, util.OrderedMap):
        return list(v._items)
    return list(v.items())


def udt_fields(t, v):
    """The field values of v, a user-defined type's value as the driver
    decodes it (a namedtuple of the server's fields; when a field name is
    not a Python identifier, a keyword such as pass included, the driver
    renames it field_<i>_), for each field of t: by name, else by position
    (the server adds fields at the end only); a field v lacks is None."""
    names = getattr(v, "_fields", ())
    out = []
    for i, (fname, _) in enumerate(t[1]):
        if fname in names:
            out.append(getattr(v, fname))
        elif i < len(v):
            out.append(v[i])
        else:
            out.append(None)
    return out


def canon(t, v, raw=False):
    name, args = t
    if v is None:
        return None
    if v is cqltypes.EMPTY:
        return {"$empty": True}
    if name == "udt":
        return dict((fname, canon(ft, x, raw)) for (fname, ft), x in zip(args, udt_fields(t, v)))
    if name == "vector":
        if raw:
            return ["%08x" % b for b in v.bits]
        return [canon(args[0], x) for x in v]
    if name in ("text", "varchar", "ascii"):
        return v
    if name == "boolean":
        return bool(v)
    if name in INTS:
        return str(int(v))
    if name == "float":
        if isinstance(v, RawF32):
            return "%08x" % int(v)
        return struct.pack(">f", v).hex()
    if name == "double":
        if isinstance(v, RawF64):
            return "%016x" % int(v)
        return struct.pack(">d", v).hex()
    if name == "blob":
        return bytes(v).hex()
    if name == "timestamp":
        if isinstance(v, RawMs):
            return int(v)
        return dt_to_ms(v)
    if name == "date":
        return v.days_from_epoch
    if name == "time":
        return v.nanosecond_time
    if name == "duration":
        return [v.months, v.days, v.nanoseconds]
    if name == "inet":
        return ipaddress.ip_address(v).packed.hex()
    if name in ("uuid", "timeuuid"):
        return str(v)
    if name in ("list", "set"):
        return [canon(args[0], e, raw) for e in v]
    if name == "map":
        return [[canon(args[0], k, raw), canon(args[1], x, raw)] for k, x in map_items(v)]
    raise ValueError("no canonical form for type %s" % (name,))


def undecodable(t, v):
    """Why the driver's normal path cannot decode raw value v of type t, or ''."""
    name, args = t
    if v is None or v is cqltypes.EMPTY:
        return ""
    if name == "timestamp" and isinstance(v, RawMs) and not PY_MIN_MS <= int(v) <= PY_MAX_MS:
        return "timestamp %d ms is outside the years 1..9999 of Python's datetime (the driver fails the whole row)" % int(v)
    if name == "float" and isinstance(v, RawF32) and is_signalling_nan32(int(v)):
        return "float bits %08x: a signalling NaN, which a Python float (a C double) quiets" % int(v)
    if name == "vector":
        for b in v.bits:
            if is_signalling_nan32(b):
                return "vector element bits %08x: a signalling NaN, which the driver's float (a Python float, a C double) quiets" % b
        return ""
    if name == "udt":
        for (_, ft), x in zip(args, udt_fields(t, v)):
            why = undecodable(ft, x)
            if why:
                return why
        return ""
    if name in ("list", "set"):
        for e in v:
            why = undecodable(args[0], e)
            if why:
                return why
    if name == "map":
        for k, x in map_items(v):
            why = undecodable(args[0], k) or undecodable(args[1], x)
            if why:
                return why
    return ""


# --- writing: canonical -> driver value ----------------------------------


def is_empty(c):
    return isinstance(c, dict) and c.get("$empty") is True


IN_UDT = "in a user-defined type"


def value(t, c, limits, col, ordered_sets=False):
    """The driver value for canonical c of type t. A value the driver's own
    type cannot hold goes a raw way, named in limits[col]. With
    ordered_sets, a set goes as a list in the order given (the server's):
    a Python set iterates in hash order, and a frozen set in a descending
    clustering column is kept in the order sent, so another order is
    another key."""
    name, args = t
    if c is None:
        return None
    if is_empty(c):
        if name in ("text", "varchar", "ascii"):
            return ""
        if name == "blob":
            return b""
        raise ValueError("an empty %s is written with blobAs%s, not as a value" % (name, name))
    if name in ("text", "varchar", "ascii"):
        return c
    if name == "boolean":
        return bool(c)
    if name in INTS:
        return int(c)
    if name == "float":
        if is_signalling_nan32(int(c, 16)):
            limits.setdefault(col, "float bits %s: a signalling NaN, which a Python float quiets: written as its bits (FloatType.serialize given the bits)" % c)
            return RawF32(int(c, 16))
        return struct.unpack(">f", bytes.fromhex(c))[0]
    if name == "vector":
        return [value(args[0], e, limits, col, ordered_sets) for e in c]
    if name == "udt":
        # The server keeps a set inside a user-defined type value in the
        # order sent (it does not sort it, even in a regular column).
        inner = ordered_sets or IN_UDT
        return UDTValue(dict((fname, value(ft, c.get(fname), limits, col, inner)) for fname, ft in args))
    if name == "double":
        return struct.unpack(">d", bytes.fromhex(c))[0]
    if name == "blob":
        return bytes.fromhex(c)
    if name == "timestamp":
        if PY_MIN_MS <= c <= PY_MAX_MS:
            return EPOCH + datetime.timedelta(milliseconds=c)
        limits.setdefault(col, "timestamp %d ms is outside the years 1..9999 of Python's datetime: written as an int of milliseconds" % c)
        return c  # DateType.serialize takes an int of milliseconds
    if name == "date":
        return util.Date(c)
    if name == "time":
        return util.Time(c)
    if name == "duration":
        return util.Duration(c[0], c[1], c[2])
    if name == "inet":
        return ipaddress.ip_address(bytes.fromhex(c))
    if name in ("uuid", "timeuuid"):
        return uuid.UUID(c)
    if name == "list":
        return [value(args[0], e, limits, col, ordered_sets) for e in c]
    if name == "set":
        items = [value(args[0], e, limits, col, ordered_sets) for e in c]
        if ordered_sets:
            limits.setdefault(col, "a Python set iterates in hash order, not the server's: sent as a list in the server's order (%s)" % (
                "a set inside a user-defined type is kept as sent" if ordered_sets == IN_UDT else "a frozen set in a descending clustering column is kept as sent"))
            return items
        try:
            return set(items)
        except TypeError:  # unhashable elements (frozen lists): a list
            return items
    if name == "map":
        return dict((value(args[0], k, limits, col, ordered_sets), value(args[1], x, limits, col, ordered_sets)) for k, x in c)
    raise ValueError("no driver value for type %s" % (name,))


def placeholder(t, c, limits, col, ordered_sets=False):
    """The bind marker for canonical c and the value bound to it."""
    name = t[0]
    if is_empty(c) and name not in ("text", "varchar", "ascii", "blob"):
        return "blobAs%s(?)" % name, b""
    if name == "float" and c is not None and is_signalling_nan32(int(c, 16)):
        limits.setdefault(col, "float bits %s: a signalling NaN, which a Python float quiets: written with blobAsFloat" % c)
        return "blobAsFloat(?)", bytes.fromhex(c)
    return "?", value(t, c, limits, col, ordered_sets)


# --- operations -----------------------------------------------------------


class Client:
    def __init__(self, req):
        self.ks = req["keyspace"]
        profile = ExecutionProfile(load_balancing_policy=WhiteListRoundRobinPolicy([req["host"]]), request_timeout=30)
        self.cluster = Cluster(
            [req["host"]],
            port=int(req["port"]),
            protocol_version=int(req.get("protocol", 5)),
            execution_profiles={EXEC_PROFILE_DEFAULT: profile},
            connect_timeout=5,
            control_connection_timeout=5,
            schema_metadata_enabled=False,
            token_metadata_enabled=False,
            idle_heartbeat_interval=0,
        )
        self.fast = self.cluster.connect()  # the driver as users run it (Cython)
        self.raw = self.cluster.connect()
        self.raw.client_protocol_handler = protocol._ProtocolHandler  # the pure-Python path
        self.prepared = {}

    def close(self):
        self.cluster.shutdown()

    def prepare(self, cql):
        p = self.prepared.get(cql)
        if p is None:
            p = self.fast.prepare(cql)
            self.prepared[cql] = p
        return p

    def where(self, op, limits):
        clauses, params = [], []
        for name, typ, c in op.get("where", []):
            clauses.append("%s = ?" % name)
            params.append(value(parse_type(typ), c, limits, name))
        cql = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        if op.get("allow_filtering"):
            cql += " ALLOW FILTERING"
        return cql, params

    def select(self, op):
        limits = {}
        cols = [(n, parse_type(t)) for n, t in op["columns"]]
        where, params = self.where(op, limits)
        table = "%s.%s" % (op.get("keyspace", self.ks), op["table"])
        # First through the raw path, which decodes every value: the
        # columns the normal path cannot decode.
        raw_rows = list(self.raw.execute(self.prepare("SELECT %s FROM %s%s" % (", ".join(n for n, _ in cols), table, where)), params))
        bad = {}
        for row in raw_rows:
            for (n, t), v in zip(cols, row):
                why = undecodable(t, v)
                if why and n not in bad:
                    bad[n] = why
        good = [(n, t) for n, t in cols if n not in bad]
        fast_rows = []
        if good:
            fast_rows = list(self.fast.execute(self.prepare("SELECT %s FROM %s%s" % (", ".join(n for n, _ in good), table, where)), params))
        if good and len(fast_rows) != len(raw_rows):
            raise RuntimeError("the raw path read %d rows, the normal one %d" % (len(raw_rows), len(fast_rows)))
        rows = []
        for i, raw_row in enumerate(raw_rows):
            fast = dict(zip((n for n, _ in good), fast_rows[i])) if good else {}
            out = []
            for (n, t), rv in zip(cols, raw_row):
                out.append(canon(t, rv, raw=True) if n in bad else canon(t, fast[n]))
            rows.append(out)
        limits.update({n: why + " (read raw)" for n, why in bad.items()})
        return {"rows": rows, "client_limit": limits}

    def insert(self, op):
        limits = {}
        marks, params = [], []
        for (n, typ), c in zip(op["columns"], op["values"]):
            mark, v = placeholder(parse_type(typ), c, limits, n, bool(op.get("ordered_sets")))
            marks.append(mark)
            params.append(v)
        cql = "INSERT INTO %s.%s (%s) VALUES (%s)" % (op.get("keyspace", self.ks), op["table"], ", ".join(n for n, _ in op["columns"]), ", ".join(marks))
        if op.get("fresh"):
            # After ALTER TYPE: a text not prepared before, so that the
            # driver prepares it with the type as it is now.
            cql += " /* %s */" % op["id"]
        self.fast.execute(self.prepare(cql), params)
        return {"client_limit": limits}

    def exec(self, op):
        """A schema statement (ALTER TYPE), waiting for schema agreement."""
        self.fast.execute(op["cql"])
        return {}

    def add(self, op):
        limits = {}
        where, params = self.where(op, limits)
        c = op["column"]
        cql = "UPDATE %s.%s SET %s = %s + ?%s" % (self.ks, op["table"], c, c, where)
        self.fast.execute(self.prepare(cql), [int(op["delta"])] + params)
        return {"client_limit": limits}


def main():
    req = json.load(sys.stdin)
    if cassandra.__version__ != "3.30.1":
        raise SystemExit("cassandra-driver %s, want 3.30.1 (scripts/pyclient.sh)" % cassandra.__version__)
    client = Client(req)
    results = []
    try:
        for op in req["ops"]:
            try:
                r = getattr(client, op["op"])(op)
            except Exception as e:  # one operation's failure is a result
                r = {"error": "%s: %s" % (type(e).__name__, e)}
            r["id"] = op["id"]
            results.append(r)
    finally:
        client.close()
    json.dump({"driver": "python-cassandra-driver-" + cassandra.__version__, "results": results}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        sys.exit(1)
