SELECT ts, dur, name FROM slice WHERE ts BETWEEN 10000 AND 20000 AND track_id = 0 ORDER BY ts;
SELECT COUNT(*) FROM slice WHERE name = 'parse' AND id >= 3 AND id < 90
