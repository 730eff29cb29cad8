CREATE TEMP TABLE t AS SELECT name, printf('%.*c', 5000, 'x') AS big, zeroblob(3000) AS z, char(0, 10, 27) AS c FROM slice LIMIT 5;
SELECT * FROM t; SELECT 'a,"b"', 1.5e300, -0.0, x'00ff'
