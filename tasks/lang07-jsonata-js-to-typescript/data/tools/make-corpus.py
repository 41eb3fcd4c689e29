# make-corpus.py writes lang07's behavioural corpus: data/cases/<family>/NN.json,
# batches of at most BATCH cases each (one Node process per batch). Run it
# from the task folder with python3; it is deterministic, and what it writes
# is committed. The expected answers are not here: srb freeze records them
# from State A into truth/. A picture that leaves the year out is not
# here: $toMillis fills what it lacks from the clock.
import itertools
import json
import os
import shutil

BATCH = 30
out = {}


def add(family, expr, **kw):
    c = {"expr": expr}
    c.update(kw)
    out.setdefault(family, []).append(c)


def q(s):
    return json.dumps(s, ensure_ascii=False)


# ---------------------------------------------------------------- paths
for e in [
    "Shop.Name", "Shop.Customer.Name", "Shop.Customer[0].Name", "Shop.Customer[-1].Id",
    "Shop.Customer.Order.OrderId", "Shop.Customer.Order.Item.Sku", "Shop.Customer.Order.Item.Price",
    "Shop.Customer.Order.Item[0].Sku", "Shop.Customer.Order[0].Item.Sku", "(Shop.Customer.Order.Item)[0].Sku",
    "Shop.Customer.Order.Item[Price > 5].Sku", "Shop.Customer.Order.Item[Qty >= 4]", "Shop.Customer[Order].Name",
    "Shop.Customer[Email].Id", "Shop.Customer.Email", "Shop.Customer.Email[0]", "Shop.Customer[0].Email[1]",
    "Shop.Customer.Order.Item.Description.Colour", "Shop.Customer.Order.Item.Description.Weight",
    "Shop.Customer.Order.Item.Tags", "Shop.Customer.Order.Item.Tags[0]", "Shop.Customer.Order.Item[Tags = 'tools'].Sku",
    "Shop.*.Name", "Shop.Customer[0].*", "Shop.Customer.Order.Item.*", "**.Colour", "Shop.**.Sku", "**.OrderId[0]",
    "Shop.Customer.Order.Item.Sku[]", "Shop.Customer[0].Order[1].Item.Sku", "Shop.Customer[0].Order[1].Item.Sku[]",
    "Shop.Customer.Order.Item[0]", "Shop.Customer.Order.Item[[0..1]].Sku", "Shop.Customer.Order.Item[[1, 2]].Sku",
    "Shop.Customer.Missing", "Shop.Customer.Order.Item.Missing.Deeper", "Missing", "$", "$$.Shop.Name",
    "Shop.Customer.Order.Item.(Price * Qty)", "Shop.Customer.Order.Item.{ 'sku': Sku, 'total': Price * Qty }",
    "Shop.Customer.{ Name: $count(Order) }", "Shop.Customer.Order.Item.%.OrderId", "Shop.Customer.Order.Item.%.%.Name",
    "Shop.Customer.Order.Item[%.OrderId = 'O-3'].Sku", "Shop.Customer.Order@$o.Item@$i.{ 'order': $o.OrderId, 'sku': $i.Sku }",
    "Shop.Customer.Order#$n.{ 'n': $n, 'id': OrderId }", "Shop.Customer#$c.Order#$o.Item#$i.[$c, $o, $i]",
    "Shop.Customer@$c.Order[$c.Id = 'C-200'].OrderId", "Shop.Customer.Order.Item^(Price).Sku", "Shop.Customer.Order.Item^(>Price).Sku",
    "Shop.Customer.Order.Item^(Description.Colour, >Qty).Sku", "Shop.Customer.Order.Item{ Sku: $sum(Qty) }",
    "Shop.Customer.Order.Item{ Description.Colour: Sku }", "Shop.Customer{ Id: Order.OrderId }",
    "Shop.Customer.Order.Item[0][Price > 10].Sku", "Shop.Customer[Name ~> /^[AB]/].Id", "Shop.Customer.`Name`",
    "Shop.Customer.Order.Item.Sku[$ = 'N-NAILS']", "Shop.Customer.Order[Item.Price > 30].OrderId",
    "Shop.Customer.Order.Item[$substring(Sku, 0, 1) = 'N'].Qty", "$count(Shop.Customer.Order.Item)",
    "Shop.Customer.Order.Item[-1].Sku", "Shop.Customer.Order.Item[1.7].Sku", "Shop.Customer.Order.Item[true].Sku",
    "Shop.Customer.Order.Item[false].Sku", "Shop.Customer.Order.Item[Qty].Sku", "Shop.Customer.Order.Item[Tags].Sku",
]:
    add("paths", e, doc="shop")
for e in [
    "name", "$[0].name", "$[-1]", "address.city", "phone.number", "phone[type = 'mobile'].number",
    "$[age > 30].name", "$[active].name", "$[active = false].name", "$[not(active)].name", "$[$not(active)].name",
    "scores", "scores[0]", "$.scores[0]", "$.scores[[0]]", "$map($, function($p) { $p.scores[0] })",
    "address.postcode", "$[address.postcode].name", "$[address.postcode = null].name", "$[phone].name",
    "$[0].phone", "$[2].phone", "$[2].phone[]", "$[3].phone", "name[]", "$[age < 30]", "$[0..1]",
    "$.{ name: age }", "$.[name, age]", "$.name & ' ' & surname", "*.city", "**.number", "$[name in ['Ana', 'Omar']].age",
    "$[0].%", "phone.%.name", "$#$i[$i % 2 = 0].name", "$^(age).name", "$^(>age).name", "$^(address.city, name).name",
    "$.address{ city: $count($) }", "${ address.city: name }", "${ address.city: $count(name) }",
]:
    add("paths", e, doc="people")
for e in [
    "num", "neg", "big", "tiny", "frac", "str", "empty", "unicode", "yes", "nil", "list", "list[3]", "list[-2]",
    "list[[2..4]]", "list[$ > 5]", "list[$ % 3 = 0]", "nested", "nested[0]", "nested[1][1]", "nested.$", "nested[[]]",
    "nested[1]", "nested.$[0]", "words[1]", "objs.v", "objs[k = 'a'].v", "objs{ k: v }", "objs{ k: $sum(v) }",
    "deep.a.b.c.d", "deep.**.f", "deep.a.b.c.e[1].f", "deep.*.*.*.d", "keys.`first name`", "keys.`with.dot`",
    "keys.`$dollar`", "keys.*", "$keys(keys)", "deep.a.b.x.y", "list.($ * 2)", "[list]", "[list[0]]", "list[0][]",
]:
    add("paths", e, doc="mixed")
for e, inp in [
    ("$", [1, 2, 3]), ("$[0]", [1, 2, 3]), ("$", []), ("$[0]", []), ("$", [[1]]), ("$[0]", [[1, 2]]),
    ("a", [{"a": 1}, {"a": [2, 3]}, {"b": 4}]), ("a[0]", [{"a": [1, 2]}, {"a": [3]}]), ("a.b", {"a": [{"b": [1]}, {"b": [2, 3]}]}),
    ("a.b[]", {"a": [{"b": 1}]}), ("a[].b", {"a": {"b": 1}}), ("a", {"a": None}), ("a.b", {"a": None}), ("$", None),
    ("$", "text"), ("$", 0), ("$[0]", "text"), ("$.a", [{"a": [1, [2]]}]), ("a.b.c", {"a": [{"b": [{"c": 1}, {"c": 2}]}, {"b": {"c": [3, 4]}}]}),
    ("$[1][0]", [[1, 2], [3, 4]]), ("$.$", [[1, 2], [3, 4]]), ("$[$ > 1]", [1, 2, 3]), ("*", {"x": 1, "y": [2, 3]}), ("**", {"x": {"y": 1}}),
]:
    add("paths", e, input=inp)

# ---------------------------------------------------------------- operators
nums = ["0", "1", "-1", "2.5", "-0.5", "7", "1e3", "0.1", "3", "10"]
for a, b in itertools.product(["7", "-2.5", "0.1", "1e21"], ["3", "0.2", "-4", "0"]):
    for op in ["+", "-", "*", "/", "%"]:
        add("operators", f"{a} {op} {b}")
for a, b in [("1", "2"), ("'a'", "'b'"), ("'a'", "'a'"), ("2", "'2'"), ("true", "true"), ("null", "null"), ("[1,2]", "[1,2]"), ("{'a':1}", "{'a':1}"), ("1", "1.0"), ("'10'", "'9'"), ("1e400", "1")]:
    for op in ["=", "!=", "<", "<=", ">", ">="]:
        add("operators", f"{a} {op} {b}")
for e in [
    "'a' & 'b'", "'a' & 1", "1 & 2", "'x' & true", "'x' & null", "'x' & [1,2]", "'x' & {'a':1}", "'x' & missing", "1.1 & ''", "0.1 + 0.2 & ''",
    "true and false", "true or false", "1 and 'a'", "0 or ''", "missing or true", "missing and true", "[] and true", "{} or false",
    "1 in [1,2]", "'b' in ['a','b']", "3 in 3", "'a' in 'abc'", "[1] in [[1]]",
    "[1..5]", "[5..1]", "[0..0]", "[1..3, 7..9]", "[-2..2]", "[1.5..3]", "['a'..'c']", "[1..missing]",
    "1 > 0 ? 'yes' : 'no'", "missing ? 'yes' : 'no'", "0 ? 'a'", "[] ? 'a' : 'b'", "[0] ? 'a' : 'b'", "'' ? 'a' : 'b'", "{} ? 'a' : 'b'",
    "missing ?: 'default'", "0 ?: 'default'", "'' ?: 'x'", "false ?: 'x'", "missing ?? 'default'", "null ?? 'default'", "0 ?? 'default'", "false ?? 1",
    "($x := 3; $x * $x)", "($a := 1; $b := $a + 1; [$a, $b])", "($x := 1; ($x := 2); $x)", "(1; 2; 3)", "()", "($f := function($n){$n+1}; $f(2))",
    "-5", "-(-5)", "- missing", "-'a'", "2 * (3 + 4)", "2 * 3 + 4", "10 - 2 - 3", "2 / 4 * 8", "17 % 5 * 2", "1 + 2 & 3 + 4",
    "[1,2,3] ~> $sum()", "'hello' ~> $uppercase", "3 ~> function($x){$x*$x}", "[3,1,2] ~> $sort ~> $reverse",
    "{'a': 1, 'b': 2}", "{'a': 1, 'a': 2}", "{'a': missing}", "{}", "[]", "[[]]", "[1, [2, [3]]]", "[1, missing, 3]", "{'k': [1, missing]}",
    "[{'a': 1}, {'a': 2}].a", "{'a': [1,2,3]}.a[1]", "\"double\" & 'single'", "'esc: \\n\\t\\u00e9\\\\'", "'\\u00e9' = 'é'", "9007199254740993",
    "1e308 * 10", "0.1 + 0.2", "1/3", "2 * 0.1", "100000000000000000000000", "1e-7", "123456789012345680000", "-0", "0 * -1",
    "$type(/ab+c/i)", "$type(/x/)", "'x' ~> /x/", "'abc' = 'abc' and 2 > 1 or false",
]:
    add("operators", e)
for e in [
    "Shop.Customer.Order.Item ~> |$|{'Line': Price * Qty}|", "Shop.Customer ~> |Order.Item|{'Price': Price * 2}, ['Tags']|",
    "Shop ~> |Customer|{}, ['Email', 'Order']|", "Shop.Customer[0] ~> |Order[0].Item[0].Description|{'Colour': 'Green'}|",
    "$ ~> |**.Description|{'Weight': undefined}|", "Shop.Customer ~> |$[Id = 'C-100']|{'Vip': true}|",
    "(Shop.Customer ~> |Order|{'n': $count(Item)}|).Order.n", "Shop.Customer.Order.Item.{ Sku: Price }",
    "Shop.Customer.Order.Item{ Sku: Price }", "Shop.Customer.Order{ OrderId: $sum(Item.(Price * Qty)) }",
    "Shop.Customer.Order.Item{ Sku: Qty }~> $each(function($v, $k){ $k & '=' & $v })", "Shop.Customer.{ 'id': Id, 'orders': [Order.OrderId] }",
    "Shop.Customer.Order.Item^(>Qty)[0].Sku", "Shop.Customer.Order.Item{ $string(Qty > 2): Sku }", "Shop.Customer.Order.Item{ Price: Sku }",
    "Shop.Customer.Order.Item[Price > 5]{ Description.Colour: { 'skus': Sku, 'n': $count(Sku) } }", "{ 'sum': $sum(Shop.**.Price) }",
    "Shop.Customer.Order.Item.[Sku, Qty]", "Shop.Customer.Order.Item.[[Sku]]", "[Shop.Customer.Order.Item.Sku]",
]:
    add("operators", e, doc="shop")

# ---------------------------------------------------------------- library (the function library)
strs = ["'Hello, World'", "''", "'  spaced out  '", "'naïve café'", "'日本語テキスト'", "'😀 emoji 😀'", "'a,b,,c'", "'MiXeD cAsE'"]
for s in strs:
    for f in ["$string({})", "$length({})", "$uppercase({})", "$lowercase({})", "$trim({})", "$substring({}, 2)", "$substring({}, -3)",
              "$substring({}, 1, 3)", "$substringBefore({}, ',')", "$substringAfter({}, ' ')", "$pad({}, 14)", "$pad({}, -14, '#')",
              "$contains({}, 'o')", "$split({}, ',')", "$split({}, '', 3)", "$join($split({}, ' '), '_')", "$base64encode({})",
              "$encodeUrlComponent({})", "$encodeUrl({})", "$replace({}, 'a', 'A')", "$reverse($split({}, ''))"]:
        add("library", f.replace("{}", s))
for n in ["0", "1", "-1", "3.14159", "-2.5", "2.5", "1e21", "0.000001", "123456.789", "-0.0", "9007199254740993", "1e-7"]:
    for f in ["$string({})", "$number({})", "$abs({})", "$floor({})", "$ceil({})", "$round({})", "$round({}, 2)", "$round({}, -1)",
              "$sqrt($abs({}))", "$power({}, 2)", "$formatNumber({}, '#,##0.00')", "$formatNumber({}, '0.0e0')",
              "$formatBase($floor($abs({})), 16)", "$formatInteger($floor($abs({})) % 5000, 'w')", "$boolean({})", "$type({})"]:
        add("library", f.replace("{}", n))
for e in [
    "$number('42')", "$number('0x1F')", "$number('1e3')", "$number(' 12 ')", "$number(true)", "$number('-0')", "$number('abc')", "$number(null)",
    "$string(true)", "$string(null)", "$string([1, 'a', {'b': null}])", "$string({'a': 1.5, 'b': [true]}, true)", "$string(1/3)", "$string(0.1+0.2)",
    "$string(123456789012345678)", "$string(1e-7)", "$string(function(){1})", "$string('x', true)",
    "$power(2, 0.5)", "$power(-8, 1/3)", "$power(10, -2)", "$sqrt(-1)", "$round(2.5)", "$round(3.5)", "$round(-2.5)", "$round(1.005, 2)", "$round(12345, -2)",
    "$formatNumber(1234.5678, '#,###.00')", "$formatNumber(0.25, '0%')", "$formatNumber(0.005, '0.0‰')", "$formatNumber(-12.3, '0.00;(0.00)')",
    "$formatNumber(1e6, '#,##0')", "$formatNumber(12, '000')", "$formatNumber(3.1, '#.##e0')", "$formatNumber(1234.5, '#.##0,00', {'decimal-separator': ',', 'grouping-separator': '.'})",
    "$formatNumber(42, '#', {'zero-digit': '٠'})", "$formatBase(255, 2)", "$formatBase(-255, 36)", "$formatBase(10)",
    "$formatInteger(1999, 'I')", "$formatInteger(2024, 'i')", "$formatInteger(21, 'W')", "$formatInteger(121, 'Ww')", "$formatInteger(3, '1;o')",
    "$formatInteger(12, '0001')", "$formatInteger(1234567, '#,##0')", "$formatInteger(28, 'A')", "$formatInteger(703, 'a')", "$formatInteger(42, 'wo')",
    "$parseInteger('MCMXCIX', 'I')", "$parseInteger('twelve thousand and six', 'w')", "$parseInteger('1,234', '#,##0')", "$parseInteger('AB', 'A')", "$parseInteger('12th', '1;o')",
    "$sum([1,2,3.5])", "$sum([])", "$max([3,9,1])", "$min([3,9,1])", "$average([1,2,3,4])", "$max([])", "$average([])", "$count([1,[2,3]])", "$count(missing)", "$count('x')",
    "$append([1,2],[3])", "$append(1, 2)", "$append([], missing)", "$append(missing, [1])", "$reverse([1,2,3])", "$distinct([1,2,2,'1',[1],[1]])",
    "$distinct([{'a':1},{'a':1}])", "$sort([3,1,2])", "$sort(['b','a','C'])", "$sort([2,1], function($a,$b){$a<$b})", "$zip([1,2,3],['a','b'])", "$zip([1])",
    "$keys({'b':1,'a':2})", "$keys([{'a':1},{'b':2,'a':3}])", "$lookup({'a':1}, 'a')", "$lookup([{'a':1},{'a':2}], 'a')", "$lookup({'a':1}, 'z')",
    "$spread({'a':1,'b':2})", "$spread([{'a':1},{'b':2}])", "$merge([{'a':1},{'a':2,'b':3}])", "$merge([])", "$merge({'x':1})",
    "$each({'a':1,'b':2}, function($v,$k){$k & $v})", "$sift({'a':1,'b':2,'c':3}, function($v){$v>1})", "$sift({'a':1}, function($v,$k){$k='z'})",
    "$exists(missing)", "$exists(null)", "$exists(0)", "$boolean([])", "$boolean([0])", "$boolean([1,0])", "$boolean({})", "$boolean({'a':1})",
    "$boolean('')", "$boolean('0')", "$boolean(function(){1})", "$not(0)", "$not('a')", "$not(missing)",
    "$type(null)", "$type([])", "$type({})", "$type('a')", "$type(true)", "$type(missing)", "$type(function(){1})", "$type($sum)",
    "$base64decode('SGVsbG8=')", "$base64decode($base64encode('ünïcödé'))", "$decodeUrlComponent('a%20b%2Fc')", "$decodeUrl('https://x.org/a%20b')",
    "$encodeUrl('https://x.org/a b?q=ü&r=1')", "$encodeUrlComponent('a b/c?d=é')", "$decodeUrlComponent('%E0%A4%A')",
    "$eval('1 + 2')", "$eval('$ * 2', 21)", "$eval('[1,2,3].$string()')", "$eval('a.b', {'a': {'b': 'c'}})", "$eval('')", "$eval(missing)",
    "$eval('$sum(a)', {'a': [1,2]})", "$eval('1 +')", "$eval('$x', {})", "$clone({'a': [1, {'b': 2}]})", "$clone(0.1 + 0.2)",
    "$join(['a','b','c'])", "$join(['a'], '-')", "$join([], '-')", "$join('solo', '-')", "$pad('7', 3, '0')", "$pad('7', -3, '0')", "$pad('abc', 2)",
    "$substring('hello', 10)", "$substring('hello', 1, -1)", "$substring('hello', -10, 3)", "$substringBefore('abc', 'z')", "$substringAfter('abc', 'z')",
    "$split('a1b22c333', /[0-9]+/)", "$split('abc', '', 0)", "$split('a.b.c', '.', 2)", "$uppercase(missing)", "$length(missing)", "$trim('\\n\\t x  y \\n')",
    "$single([5])", "$single([1,2,3], function($v){$v=2})", "$filter([1,2,3,4], function($v,$i){$i>1})", "$map([1,2], $string)",
    "$reduce([1,2,3,4], function($a,$b){$a+$b})", "$reduce([1,2,3], function($a,$b){$a*$b}, 10)", "$reduce([], function($a,$b){$a+$b})", "$reduce([7], function($a,$b){$a+$b})",
]:
    add("library", e)
for e in [
    "$sum(Shop.Customer.Order.Item.(Price * Qty))", "$max(Shop.**.Price)", "$min(Shop.**.Price)", "$average(Shop.**.Qty)", "$count(Shop.**.Sku)",
    "$distinct(Shop.**.Sku)", "$sort(Shop.**.Sku)", "$keys(Shop)", "$keys(Shop.Customer)", "$lookup(Shop.Customer, 'Id')", "$spread(Shop.Customer[0].Order[0].Item[0].Description)",
    "$merge(Shop.**.Description)", "$each(Shop.Customer[0].Order[0].Item[0], function($v, $k){$k})", "$string(Shop.Customer[2])", "$string(Shop.Customer[2], true)",
    "$join(Shop.Customer.Name, '; ')", "$uppercase(Shop.Name)", "$zip(Shop.Customer.Id, Shop.Customer.Name)", "$sift(Shop.Customer[0], function($v){$type($v)='string'})",
    "$type(Shop.Customer)", "$exists(Shop.Customer.Fax)", "$count(Shop.Customer.Email)", "$append(Shop.Customer.Id, Shop.Customer.Name)",
]:
    add("library", e, doc="shop")

# ---------------------------------------------------------------- lambdas and regex
for e in [
    "$map([1,2,3], function($v){$v*10})", "$map([1,2,3], function($v,$i){$i})", "$map([1,2,3], function($v,$i,$a){$count($a)})", "$map([], function($v){$v})",
    "$map(5, function($v){$v+1})", "$map([1,2], function(){42})", "$filter([1,2,3], function($v,$i,$a){$v < $count($a)})", "$filter([], function($v){true})",
    "$single([1,2,3], function($v,$i){$i=1})", "$reduce([1,2,3], function($acc,$v,$i){$acc + $v * $i}, 0)", "$reduce([1,2,3], function($acc,$v,$i,$a){$acc + $count($a)}, 0)",
    "$each({'a':1}, function($v,$k,$o){$keys($o)})", "$sift({'a':1,'b':2}, function($v,$k,$o){$count($keys($o))=2})",
    "function($x){$x}(5)", "(function($x, $y){$x + $y})(1, 2)", "($add := function($x, $y){$x + $y}; $add(1))", "($add := function($x, $y){$x + $y}; $add(1, 2, 3))",
    "($f := function($x){function($y){$x * $y}}; $f(3)(4))", "($counter := function($n){$n <= 0 ? 0 : 1 + $counter($n - 1)}; $counter(50))",
    "($fact := function($n){$n <= 1 ? 1 : $n * $fact($n - 1)}; $fact(10))", "($fib := function($n){$n < 2 ? $n : $fib($n-1) + $fib($n-2)}; $map([0..15], $fib))",
    "($loop := function($n, $acc){$n = 0 ? $acc : $loop($n - 1, $acc + $n)}; $loop(2000, 0))", "($even := function($n){$n = 0 ? true : $odd($n-1)}; $odd := function($n){$n = 0 ? false : $even($n-1)}; $even(101))",
    "($add := function($x, $y){$x + $y}; $inc := $add(?, 1); $inc(41))", "($sub := function($x, $y){$x - $y}; $from10 := $sub(10, ?); $map([1,2,3], $from10))",
    "$substring(?, 0, 2)('abcdef')", "($first := $substring(?, 0, 1); ['xy','zw'].$first($))", "$map(['a','b'], $uppercase)", "$map([1.5, 2.5], $round)",
    "($compose := function($f, $g){function($x){$g($f($x))}}; $compose($uppercase, $length)('hello'))", "($twice := function($f){function($x){$f($f($x))}}; $twice(function($n){$n*3})(2))",
    "(['a','b'] ~> $map(function($v){$v & $v}))", "($square := function($x){$x*$x}; $inc := function($x){$x+1}; $f := $square ~> $inc; $f(3))",
    "($f := $uppercase ~> $substring(?, 0, 3); $f('javascript'))", "[1,2,3].(function($x){$x * 2})($)", "[3,1,2]^($)", "[3,1,2]^(>$)",
    "$type(function($a, $b){$a+$b})", "$string(function($a){$a})", "$type($map)", "($f := function($x)<n:n>{$x + 1}; $f(2))", "($f := function($x)<n:n>{$x + 1}; $f('2'))",
    "($f := function($x, $y)<s-n?:s>{$x & $y}; $f(3))", "($f := function($x)<a<n>:n>{$sum($x)}; $f([1,2,3]))", "($f := function($x)<a<n>:n>{$sum($x)}; $f(['a']))",
    "($f := function($x)<(sn):s>{$string($x)}; [$f(1), $f('a')])", "($f := function($x)<(sn):s>{$string($x)}; $f(true))", "($f := function($o)<o:a>{$keys($o)}; $f({'a':1}))",
    "($f := function($x)<x-:x>{$x}; 'ctx' ~> $f())", "($f := function($x)<j:j>{$x}; $f(null))", "($f := function($f)<f:s>{$type($f)}; $f($sum))",
    "($v := function($a)<n+:n>{$count($a)}; $v(1, 2, 3))", "($f := function($b)<b:b>{$not($b)}; $f(1))", "($g := function()<:n>{5}; $g())",
    "$sort([{'n':2},{'n':1},{'n':2,'x':1}], function($l, $r){$l.n > $r.n}).n", "$sort(['b','a'], function($l){true})",
    "$map([[1,2],[3]], $count)", "$map({'a':1}, function($v){$v})", "$filter({'a':1}, function($v){true})", "$reduce('x', function($a,$b){$a})",
    "$single([], function($v){true})", "$single([1,1], function($v){true})", "$map([1,2,3], $string(?, true))", "$lookup(?, 'a')({'a': 'partial'})",
]:
    add("lambdas", e)
for s, r in itertools.product(["'The quick brown fox'", "'aaa bbb'", "'2024-02-29 and 1999-12-31'", "'Über Straße'", "''"],
                              ["/o/", "/(\\w)(\\w)/", "/[0-9]{4}-([0-9]{2})-([0-9]{2})/", "/b+/", "/^$/", "/.*/", "/ü|ß/i", "/X/i"]):
    for f in ["$match({s}, {r})", "$replace({s}, {r}, '<$0>')", "$contains({s}, {r})", "$split({s}, {r})"]:
        add("lambdas", f.format(s=s, r=r))
for e in [
    "$match('abcabc', /(a)(b)?/, 1)", "$match('aaaa', /a/, 2)", "$replace('abc', /b/, '$1')", "$replace('abc', /(b)/, '[$1$2]')", "$replace('abc', /(b)/, '$$')",
    "$replace('a-b-c', '-', '+', 1)", "$replace('hello', /l/, function($m){$uppercase($m.match)})", "$replace('John Smith', /(\\w+)\\s(\\w+)/, '$2, $1')",
    "$replace('abc', /x*/, '-')", "$replace('price 5', /\\d/, function($m){$string($number($m.match) * 2)})", "$replace('aaa', 'a', 'b', 0)",
    "$split('a1b2c3', /\\d/, 2)", "$contains('Hello', /^h/i)", "$match('a1b2', /[a-z](\\d)/).groups", "$match('x', /x/).index",
    "'abc' ~> /b/", "['apple', 'banana', 'cherry'][$ ~> /an/]", "$map(['a1','b2'], function($s){$match($s, /\\d/).match})",
    "$replace('   x  ', /^\\s+|\\s+$/, '')", "$replace('tab\\tsep', /\\t/, ' ')", "$match('αβγ', /β/).index", "$split('one  two', /\\s+/)",
    "/[/", "$match('a', /(/)", "$replace('a', /a/, function($m){5})", "$replace('a', /a/, 5)",
]:
    add("lambdas", e)
for e in ["name[$ ~> /^[A-L]/]", "$[name ~> /a/i].surname", "phone.number.$replace($, /\\s/, '')", "$[$match(address.city, /^H/)].name",
          "$.$split(address.street, ' ')[0]", "$[$contains(surname, /[aeiou]{2}/)].name"]:
    add("lambdas", e, doc="people")
for e in ["name", "$[0].name", "$[name ~> /^[ak]/i].name"]:
    add("lambdas", e, doc="people", options={"RegexEngine": "caseless"})

# ---------------------------------------------------------------- dates
ms = ["0", "951782400000", "1709208000000", "1704067199999", "-86400000", "1700000000000", "1230768000000", "1735689600000"]
pics = ["[Y0001]-[M01]-[D01]", "[D1o] [MNn] [Y]", "[FNn], [D] [MNn,*-3] [Y]", "[H01]:[m01]:[s01].[f001]", "[h]:[m01] [PN]",
        "[Y,2]", "[W01] [w]", "[X0001]-W[W01]-[F1]", "[d] [dwo]", "[MI] [YI]", "[Dwo] of [MNn]", "[Z]", "[z]", "[Y0001]-[M01]-[D01]T[H01]:[m01]:[s01][Z01:01]",
        "[E] [C]", "[F,3-3] [FN,2-2]", "[Y9,999,*]", "[D#1] [M#1]", "[H1] [h1] [P]"]
for m in ms:
    add("dates", f"$fromMillis({m})")
    for p in pics:
        add("dates", f"$fromMillis({m}, '{p}')")
    for tz in ["+0530", "-0800", "0000"]:
        add("dates", f"$fromMillis({m}, '[Y0001]-[M01]-[D01] [H01]:[m01] [Z]', '{tz}')")
for e in [
    "$toMillis('2024-02-29T12:00:00Z')", "$toMillis('2024-02-29T12:00:00.123+01:00')", "$toMillis('1970-01-01')", "$toMillis('2024-02-29')", "$toMillis('not a date')",
    "$toMillis('2024')", "$toMillis('2024-13-01')", "$toMillis('29/02/2024', '[D01]/[M01]/[Y0001]')", "$toMillis('2024-060', '[Y0001]-[d001]')",
    "$toMillis('Thursday, 29th February 2024', '[FNn], [D1o] [MNn] [Y]')", "$toMillis('2024-W09-4', '[X0001]-W[W01]-[F1]')",
    "$toMillis('MMXXIV', '[YI]')", "$toMillis('2024-02-29 +0530', '[Y0001]-[M01]-[D01] [Z]')",
    "$toMillis('twenty-third of March 1999', '[Dw] of [MNn] [Y0001]')", "$toMillis('2024-02-30', '[Y0001]-[M01]-[D01]')", "$toMillis('x', '[Y0001]')",
    "$fromMillis($toMillis('2023-06-15T08:45:30.250Z'), '[Y]-[M]-[D] [H]:[m]:[s].[f]')", "$fromMillis(1700000000000, '[Y0001]', '+99:99')",
    "$fromMillis(1700000000000, '[Q]')", "$fromMillis(1700000000000, '[Y0001')", "$fromMillis(1700000000000, '[[literal]] [Y]')", "$fromMillis(missing)",
    "$fromMillis('x')", "$fromMillis(1700000000000.7)", "$type($millis())", "$type($now())", "$millis() = $millis()", "$now() = $now()",
    "$length($now('[Y0001]'))", "$formatInteger(2024, '[Y]')",
]:
    add("dates", e)
for e in ["$map(dates, $toMillis)", "$map(millis, $fromMillis)", "$map(millis, function($m){$fromMillis($m, '[FNn] [D1o] [MNn] [Y]')})",
          "$map(dates, function($d){$fromMillis($toMillis($d), '[X]-W[W] [F]')})"]:
    add("dates", e, doc="mixed")

# ---------------------------------------------------------------- diagnostics (errors)
for e in [
    "", " ", "(", ")", "[1,2", "{'a' 1}", "{'a':}", "1 +", "+", "$", "$$$", "a.", ".a", "a..b", "a[", "a]", "a[]b", "'unterminated", "\"mixed'",
    "`unterminated", "/unterminated", "/a/z", "1.2.3", "1e", "0x10", "@", "#", "a@b", "a#b", "$x :=", ":= 1", "function($x{$x}", "function(x){x}",
    "$type(function($x)<n:>{1})", "function($x)<q>{1}(2)", "a ~> ", "|a|b", "|a|", "a ? : b", "1 ?? ", "**.", "%", "a[1..]", "{1: 2", "$f(", "$f(,)",
    "and", "a and", "in", "a in", "true true", "1 2", "'a' 'b'", "[1,]", "{,}", "(;)", "a{}{}", "a{'x':1}{'y':2}", "a^()", "a^(", "$sum(1,", "a.b.c.", "a b",
    "/[/", "'\\x'", "'\\u12'", "'\\uZZZZ'", "$x := 1 := 2", "1 := 2", "'a' := 1", "a.$x := 1", "$x{", "?", "$f(?", "[1..2..3]", "(a:=1)", "@$x.y", "a#$i#$j", "a@$x@$y",
]:
    add("diagnostics", e)
for e in [
    "'a' + 1", "1 - 'b'", "-'x'", "[1] * 2", "{} / 1", "true % 2", "1 < 'a'", "'a' > true", "[1] <= [2]", "1 & $sum", "$sum('a')", "$sum([1,'a'])",
    "$max(['a'])", "$average('x')", "$uppercase(1)", "$length(123)", "$substring('a', 'b')", "$substring()", "$pad('a')", "$join([1,2])", "$split(1, ',')",
    "$number([1])", "$number('1', 2)", "$abs('1')", "$power('a', 2)", "$round(1, 'a')", "$sqrt('4')", "$formatNumber('1', '0')", "$formatBase(1, 1)", "$formatBase(1, 37)",
    "$formatInteger(1, 'x')", "$parseInteger('abc', '#')", "$keys(1)", "$lookup(1, 2)", "$merge([1])", "$spread(1)", "$zip(1)", "$append()", "$reverse('abc')", "$sort(1)",
    "$sort([1,'a'])", "$sort([{},{}])", "$distinct()", "$count()", "$exists()", "$exists(1, 2)", "$boolean()", "$not()", "$string(1, 2, 3)",
    "$map()", "$map([1])", "$map([1], 1)", "$filter([1], 'x')", "$reduce([1,2])", "$reduce([1,2], function($a){$a})", "$single([1,2])", "$single([])",
    "$each(1, function(){1})", "$sift([1], function(){1})", "$replace('a', '', 'b')", "$replace('a')", "$replace(1, 'a', 'b')", "$replace('a', 'a', 'b', -1)",
    "$split('a', ',', -1)", "$split('a', ',', 'x')", "$match('a', 'a')", "$contains(1, 'a')", "$base64encode(1)", "$encodeUrl(1)", "$decodeUrl('%')", "$decodeUrlComponent('%')",
    "$encodeUrlComponent('\\ud800')", "$eval('1 +')", "$eval('$nosuch()')", "$error('custom failure')", "$error()", "$error(1)", "$assert(false, 'assertion text')",
    "$assert(true)", "$assert(1, 'x')", "$assert(false)", "$nosuch()", "$nosuch", "missing()", "1()", "'a'(1)", "$x(1)", "($x := 5; $x())", "$string(?)(1, 2)",
    "1 ~> 2", "1 ~> $x", "'a' ~> $uppercase(1)", "[1,2,3].$max(1)", "{'a': 1}.[a](1)", "{'a':1, 'b': 2}{a: b}", "{'k': 1, 'k2': 1}{ $string(k): 1 }",
    "[{'a':'x'},{'a':'x'}]{a: 1}", "[{'a':1},{'a':'x'}]^(a)", "[{'a':[1]},{'a':2}]^(a)", "[0..1e7]", "[1..'a']", "['a'..2]", "[1.5..2]",
    "$fromMillis('1')", "$fromMillis(0, 1)", "$toMillis(1)", "$formatInteger('1', '0')", "$now(1)", "$millis(1)", "{} ~> |a|1|", "{} ~> |a|{}, 1|", "[1,2] ~> |$|{}|",
    "$x.y := 1", "{ 'a': 1 } ~> $keys ~> $uppercase", "$lookup({}, 1)", "$substringBefore()", "($f := function($x)<n:n>{$x}; $f('a'))", "($f := function($a, $b)<nn:n>{$a}; $f(1))",
    "($f := function()<n:n>{1}; $f(1, 2))", "$sum(1, 2)", "$pad('a', 'b')", "$clone()", "1/0", "-1/0", "0/0", "$power(10, 400)", "$sqrt(-4)", "1e400",
    "$number('1e400')", "$string(1/0)", "$formatNumber(1, '#.#.#')", "$formatNumber(1, '0%‰')", "$formatNumber(1, '##0#')", "$formatNumber(1, '')", "$formatNumber(1, '0e0e0')",
    "$formatNumber(1, '#', {'percent': 'ab'})", "$formatNumber(1, '0', 5)", "$formatInteger(1, '#0')", "$formatInteger(-5, 'w')", "$toMillis('2024-01-01', '[Y0001]-[M01]-[D01] [H]')",
    "$fromMillis(0, '[Y0001]-[M01]-[D01]', 'abc')", "$fromMillis(0, '[E]')", "$fromMillis(0, '[YN]')", "$toMillis('x', '[Z]')", "$toMillis('2024', '[Y0001][M01]')",
    "$toMillis('2024-02-01', '[Y0001]-[M01]-[D01]-[d]')", "$parseInteger('x', 'I')", "$parseInteger('1', 'w')",
]:
    add("diagnostics", e)
for e in ["Shop.Customer.Name + 1", "Shop.Customer{Name: Id}{x: 1}", "Shop.Customer.Order.Item{Qty: Sku}", "$sum(Shop.Customer.Name)",
          "Shop.Customer^(Order).Id", "Shop.Customer.Order.Item.Price.$substring($, 1)", "$error(Shop.Name)", "Shop.Customer[0].Email[1] * 2"]:
    add("diagnostics", e, doc="shop")
for e in ["1 +", "a[", "{'a':1", "$sum(", "(1; 2", "a ~> ", "[1, 2", "function($x){", "'x' & ", "a.b.", "$f(1,", "{'a': }", "1 + * 2", "a[0] b"]:
    add("diagnostics", e, mode="ast", options={"recover": True})
    add("diagnostics", e, options={"recover": True}, input={"a": {"b": 1}})

# ---------------------------------------------------------------- api
add("api", "$", mode="surface")
for e in ["Shop.Name", "a.b", "$", "1 + 2 * 3", "$sum(x.y)", "a[b > 1].c", "{'k': v}", "[1..3]", "f(1)", "$f(1, ?)", "function($x)<n:n>{$x}",
          "a ~> $f", "a ? b : c", "a ?: b", "a ?? b", "($x := 1; $x)", "a^(>b, c)", "a{b: c}", "a@$x#$i.b", "**.x", "%.a", "/ab/i", "|a|{'b':1}, ['c']|",
          "-a", "'str' & \"str\"", "a[0][1]", "a.b[]", "[a, b].c", "$.$$", "true and false or null", "a in [1]", "x.(y; z)"]:
    add("api", e, mode="ast")
for e, b in [
    ("$x + $y", {"x": 1, "y": 2}), ("$name & '!'", {"name": "bound"}), ("$x", {"x": None}), ("$x", {"x": [1, 2]}), ("$x.a", {"x": {"a": "from binding"}}),
    ("$missing", {"x": 1}), ("$f(21)", {"f": {"host": "double"}}), ("$f(21)", {"f": {"host": "asyncDouble"}}), ("$f('later')", {"f": {"host": "later"}}),
    ("$map([1,2,3], $f)", {"f": {"host": "asyncDouble"}}), ("$f()", {"f": {"host": "rejects"}}), ("$f()", {"f": {"host": "throws"}}),
    ("$f(1, 'a', [true], {'o': null})", {"f": {"host": "join"}}), ("$f(1, 2, 3)", {"f": {"host": "arity"}}), ("[$f(), $f(), $f()]", {"f": {"host": "counter"}}),
    ("$f()", {"f": {"host": "focusInput"}}), ("$f('y')", {"f": {"host": "focusLookup"}, "y": "looked up"}), ("$f(a)", {"f": {"host": "typeOf"}}),
    ("$x := 5", {"x": 1}), ("($x := 5; $x)", {"x": 1}), ("$sum := 3", {}), ("$sum", {"sum": "shadowed"}), ("$string($x)", {"x": 0.1}),
    ("$f($f(1))", {"f": {"host": "identity"}}), ("a.$f($)", {"f": {"host": "double"}}), ("$type($f)", {"f": {"host": "double"}}),
]:
    add("api", e, bindings=b, input={"a": [1, 2]})
for e, o in [
    ("$sum(a)", {"sequence": 10}), ("a", {"sequence": 2}), ("[1,2,3,4]", {"sequence": 2}), ("$append([1,2],[3,4])", {"sequence": 3}),
    ("($f := function($n){$n = 0 ? 0 : 1 + $f($n - 1)}; $f(40))", {"stack": 20}), ("($f := function($n){$n = 0 ? 0 : 1 + $f($n - 1)}; $f(5))", {"stack": 200}),
    ("a.b.c.d", {"stack": 2}), ("[[[[1]]]]", {"stack": 3}), ("$x", {"recover": True}), ("$sum(", {"recover": True}), ("a", {"timeout": 100000}),
    ("$replace('abcABC', /b/, '-')", {"RegexEngine": "caseless"}), ("$match('xX', /x/)", {"RegexEngine": "caseless"}), ("$split('aAbB', /a/)", {"RegexEngine": "caseless"}),
]:
    add("api", e, options=o, input={"a": [{"b": {"c": {"d": 1}}}, {"b": {"c": {"d": 2}}}, {"b": 3}]})
for e, a in [
    ("$x * 2", [["x", 21]]), ("$greet('World')", [["greet", {"host": "join"}]]), ("$x & $y", [["x", "a"], ["y", "b"]]), ("$x", [["x", None]]),
    ("$f(1)", [["f", {"host": "asyncDouble"}]]), ("($x := 2; $x)", [["x", 1]]), ("$x", [["x", 1], ["x", 2]]), ("$now := 1", [["now", "x"]]),
]:
    add("api", e, mode="assign", assign=a, input={"v": 1})
for e, r in [
    ("$dbl(21)", [{"name": "dbl", "host": "double"}]), ("$dbl(21)", [{"name": "dbl", "host": "double", "signature": "<n:n>"}]),
    ("$dbl('21')", [{"name": "dbl", "host": "double", "signature": "<n:n>"}]), ("$dbl()", [{"name": "dbl", "host": "double", "signature": "<n:n>"}]),
    ("v.$dbl()", [{"name": "dbl", "host": "double", "signature": "<n-:n>"}]), ("$j(1, 'x')", [{"name": "j", "host": "join", "signature": "<ns:s>"}]),
    ("$j(1, 2)", [{"name": "j", "host": "join", "signature": "<ns:s>"}]), ("$j([1,2])", [{"name": "j", "host": "join", "signature": "<a<n>:s>"}]),
    ("$j(1)", [{"name": "j", "host": "join", "signature": "<a<n>:s>"}]), ("$j('x', 2)", [{"name": "j", "host": "join", "signature": "<s(ns)?:s>"}]),
    ("$a(1)", [{"name": "a", "host": "asyncDouble", "signature": "<n:n>"}]), ("$map([1,2], $a)", [{"name": "a", "host": "asyncDouble"}]),
    ("$fi()", [{"name": "fi", "host": "focusInput"}]), ("v.$fi()", [{"name": "fi", "host": "focusInput"}]), ("($z := 'zed'; $fl('z'))", [{"name": "fl", "host": "focusLookup"}]),
    ("[$c(), $c(), $c()]", [{"name": "c", "host": "counter"}]), ("$c() + $d()", [{"name": "c", "host": "counter"}, {"name": "d", "host": "counter"}]),
    ("$t()", [{"name": "t", "host": "throws"}]), ("$r()", [{"name": "r", "host": "rejects"}]), ("$n(1,2,3,4)", [{"name": "n", "host": "arity", "signature": "<n+:n>"}]),
    ("$n()", [{"name": "n", "host": "arity", "signature": "<x*:n>"}]), ("$b(1)", [{"name": "b", "host": "identity", "signature": "<b:b>"}]),
    ("$o({'a':1})", [{"name": "o", "host": "identity", "signature": "<o:o>"}]), ("$f($sum)", [{"name": "f", "host": "typeOf", "signature": "<f:s>"}]),
    ("$u(null)", [{"name": "u", "host": "typeOf", "signature": "<l:s>"}]), ("$u(1)", [{"name": "u", "host": "typeOf", "signature": "<(sb):s>"}]),
    ("$bad(1)", [{"name": "bad", "host": "identity", "signature": "<q:n>"}]),
]:
    add("api", e, mode="register", register=r, input={"v": 4})
for e, b in [("$sum(a)", None), ("a.nothing", None), ("$error('cb')", None), ("$f(2)", {"f": {"host": "asyncDouble"}}), ("a[0] + 'x'", None), ("$", None)]:
    kw = {"mode": "callback", "input": {"a": [1, 2]}}
    if b:
        kw["bindings"] = b
    add("api", e, **kw)
for e, kw in [("$c()", {"register": [{"name": "c", "host": "counter"}], "times": 3}), ("$x", {"assign": [["x", 7]], "times": 2}),
              ("$sum(a)", {"times": 3}), ("($y := 1; $y)", {"times": 2}), ("$f(a)", {"bindings": {"f": {"host": "double"}}, "times": 2}),
              ("$millis() = $millis()", {"times": 2}), ("a.b", {"times": 2, "options": {"sequence": 1}})]:
    add("api", e, mode="repeat", input={"a": [1, 2]}, **kw)
for e, inp in [("$", {"a": 1}), ("a", [{"a": 1}, {"a": 2}]), ("$[0]", [[1, 2]]), ("$", [1]), ("$count($)", [1, 2, 3]), ("$type($)", [])]:
    add("api", e, input=inp)
for e in ["$", "$type($)", "$exists($)", "a", "$count($)"]:
    add("api", e)
    add("api", e, input=None)

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(os.path.dirname(here), "cases")
shutil.rmtree(root, ignore_errors=True)
total = 0
for fam, cases in out.items():
    d = os.path.join(root, fam)
    os.makedirs(d)
    for i in range(0, len(cases), BATCH):
        with open(os.path.join(d, "%02d.json" % (i // BATCH + 1)), "w") as f:
            json.dump({"cases": cases[i:i + BATCH]}, f, ensure_ascii=False, indent=0)
            f.write("\n")
    total += len(cases)
    print(fam, len(cases), "cases in", (len(cases) + BATCH - 1) // BATCH, "batches")
print("total", total)
