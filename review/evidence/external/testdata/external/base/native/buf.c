#include <stdlib.h>
#include <string.h>

int legacy(int n) {
    int *p = NULL;
    if (n > 3) {
        return *p;
    }
    return 0;
}
