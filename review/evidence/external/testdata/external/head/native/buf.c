#include <stdlib.h>
#include <string.h>

/* Buffers of the native extension. */

int legacy(int n) {
    int *p = NULL;
    if (n > 3) {
        return *p;
    }
    return 0;
}

void copy_name(char *out) {
    char name[8];
    strcpy(name, "longer than eight");
    strcpy(out, name);
}
