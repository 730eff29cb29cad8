/*
 * A small C++ program for the instrumentation-map tests: namespaced and
 * member functions, overloads, a template, a constructor and an operator,
 * so that names must be demangled to match `llvm-xray extract --symbolize`.
 * It is never run by the tests; only its xray_instr_map is read.
 */
#include <cstdio>
#include <vector>

namespace geo {

struct point {
	int x, y;
	point(int ax, int ay) : x(ax), y(ay) {}
	point operator+(const point &o) const { return point(x + o.x, y + o.y); }
	int norm1() const { return (x < 0 ? -x : x) + (y < 0 ? -y : y); }
};

int
area(int w, int h)
{
	return w * h;
}

double
area(double r)
{
	return 3.0 * r * r;
}

template <typename T> T
sum(const std::vector<T> &v)
{
	T s = T();
	for (const T &e : v)
		s += e;
	return s;
}

} // namespace geo

namespace {

int
helper(int n)
{
	return n <= 0 ? 0 : n + helper(n - 1);
}

} // namespace

extern "C" int
c_linkage(int v)
{
	return v ^ 0x55;
}

int
main()
{
	geo::point a(1, 2), b(-3, 4);
	std::vector<int> v{1, 2, 3};
	int r = (a + b).norm1() + geo::area(2, 3) + (int)geo::area(1.5) +
	    geo::sum(v) + helper(4) + c_linkage(3);
	std::printf("%d\n", r);
	return 0;
}
