import { HttpContextToken } from '@angular/common/http';

/** Marks a request fired by the auth lab with its call number (0: not a lab call). */
export const LAB_CALL = new HttpContextToken<number>(() => 0);
