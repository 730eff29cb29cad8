/*
 * Work shared out by size: the indexes of items in decreasing order of a
 * weight, so that the largest go first to whichever worker is free.
 */
#ifndef TTV_ORDER_H
#define TTV_ORDER_H

#include <stdint.h>

/* order[0..n) = 0..n-1 by decreasing weight[i], equal weights by
 * increasing index (the same order on every run). */
void order_by_weight(uint32_t *order, const uint64_t *weight, uint32_t n);

#endif
