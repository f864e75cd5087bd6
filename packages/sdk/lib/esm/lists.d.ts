/** Every list of the API with a cursor, and the field of its page that holds the items. */
export declare const LIST_ITEMS: {
    readonly '/api/v1/checkout/sessions': "checkoutSessions";
    readonly '/api/v1/settlements': "settlements";
};
export type ListPath = keyof typeof LIST_ITEMS;
