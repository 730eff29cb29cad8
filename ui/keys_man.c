/*
 * Prints the key list of man/ttv.1 from the key table (keys.c), so the
 * manual documents exactly the keys the viewer binds:
 *   ui/keys-man > keys.roff
 */
#include <stdio.h>

#include "keys.h"

int
main(void)
{
	keys_write_man(stdout);
	return 0;
}
