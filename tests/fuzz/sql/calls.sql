SELECT name, COUNT(*), SUM(dur), MAX(depth) FROM slice GROUP BY name ORDER BY 3 DESC;
SELECT s.id, s.name, p.name AS parent FROM slice s LEFT JOIN slice p ON s.parent_id = p.id WHERE s.depth > 0 LIMIT 20
